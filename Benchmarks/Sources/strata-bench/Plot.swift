import BenchKit
import Strata

/// Draws per-frame series as a scatter plot with Strata's own canvas and text, to a PNG.
enum Plot {
    struct Series {
        let name: String
        let color: Color
        let values: [Double]
    }

    /// `xLabel` names what the samples are, in order: frames by default.
    static func scatter(_ series: [Series], title: String, unit: String, xLabel: String = "frame", to path: String) throws {
        let (width, height) = (880.0, 380.0)
        let bitmap = try Bitmap(width: Int(width), height: Int(height))
        bitmap.clear(to: .white)
        let canvas = Canvas(bitmap: bitmap)
        let all = series.flatMap(\.values).sorted()
        // The top of the scale: the 99.9th percentile, so one outlier does not flatten the rest.
        let top = max(all.isEmpty ? 1 : all[min(all.count - 1, Int(Double(all.count) * 0.999))] * 1.1, 1e-6)
        func text(_ string: String, size: Double = 12, color: Color = Color(rgb: 0x3A3A3C)) -> TextLayout {
            TextLayout(AttributedText(string, style: TextStyle(font: Font(size: size), color: color)))
        }
        // Room on the left for the widest value label.
        let labelWidth = text(format3(top) + " " + unit, size: 10).size.width
        let left = max(70, labelWidth + 12)
        let plot = Rect(x: left, y: 50, width: width - left - 30, height: height - 110)
        canvas.draw(text(title, size: 15, color: .black), at: Point(x: plot.minX, y: 14))
        for step in 0...4 {
            let value = top * Double(step) / 4
            let y = plot.maxY - plot.height * Double(step) / 4
            canvas.fill(Rect(x: plot.minX, y: y, width: plot.width, height: 1), color: Color(rgb: 0xE5E5EA))
            let label = text(String(format3(value)) + " " + unit, size: 10)
            canvas.draw(label, at: Point(x: plot.minX - label.size.width - 6, y: y - label.size.height / 2))
        }
        let count = series.map(\.values.count).max() ?? 1
        for entry in series {
            for (index, value) in entry.values.enumerated() {
                let x = plot.minX + plot.width * Double(index) / Double(max(count - 1, 1))
                let y = plot.maxY - plot.height * min(value / top, 1)
                canvas.fill(Rect(x: x - 1.5, y: y - 1.5, width: 3, height: 3), color: entry.color.withAlpha(0.75), cornerRadius: 1.5)
            }
        }
        var legendX = plot.minX
        for entry in series {
            canvas.fill(Rect(x: legendX, y: height - 38, width: 10, height: 10), color: entry.color, cornerRadius: 5)
            let name = text(entry.name, size: 11)
            canvas.draw(name, at: Point(x: legendX + 16, y: height - 40))
            legendX += name.size.width + 40
        }
        let axis = text(xLabel, size: 10)
        canvas.draw(axis, at: Point(x: plot.maxX - axis.size.width, y: plot.maxY + 6))
        try PNG.write(bitmap, to: path)
    }

    /// Three significant decimals at most, without Foundation.
    static func format3(_ value: Double) -> String {
        let scaled = Int((value * 1000).rounded())
        let fraction = String(scaled % 1000)
        return "\(scaled / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
