import StrataCore

/// What a `StandardCell` shows: a title, an optional detail text and an optional image, after
/// UIKit's standard cell styles. Simple lists need no cell class: `ListItems<StandardCell>`.
public struct StandardRow: Identifiable, Equatable, Sendable {
    /// How the detail text sits beside the title.
    public enum Style: Equatable, Sendable {
        /// The detail under the title, in smaller grey text, on up to `detailLines` lines (UIKit's
        /// `subtitle`).
        case subtitle
        /// The detail at the trailing edge, on the title's line (UIKit's `value1`).
        case value
    }

    /// Tells the row apart from the others as the items change.
    public var id: String
    /// The main text.
    public var title: String
    /// The secondary text; none when empty.
    public var detail: String
    /// A picture at the leading edge, drawn at `imageSize`.
    public var image: Bitmap?
    /// The image's size in points.
    public var imageSize: Size
    /// Where the detail goes.
    public var style: Style
    /// Lines the detail takes at most in the `subtitle` style; 0 for no limit.
    public var detailLines: Int

    /// A row of `title`, with `detail` placed by `style`, and `image` at the leading edge.
    public init(id: String, title: String, detail: String = "", image: Bitmap? = nil, imageSize: Size = Size(width: 32, height: 32),
                style: Style = .subtitle, detailLines: Int = 2) {
        self.id = id
        self.title = title
        self.detail = detail
        self.image = image
        self.imageSize = imageSize
        self.style = style
        self.detailLines = detailLines
    }

    public static func == (lhs: StandardRow, rhs: StandardRow) -> Bool {
        lhs.id == rhs.id && lhs.title == rhs.title && lhs.detail == rhs.detail && lhs.image === rhs.image
            && lhs.imageSize == rhs.imageSize && lhs.style == rhs.style && lhs.detailLines == rhs.detailLines
    }
}

/// A ready-made row: an image, a title and a detail text, laid out by `StandardRow.Style`, as
/// UIKit's standard cells. It declares its layout, so `ListItems<StandardCell>` measures it on
/// workers like any cell.
@MainActor
public final class StandardCell: ListCell, ListItemCell {
    /// The title's label.
    public let titleLabel = Label()
    /// The detail's label.
    public let detailLabel = Label()
    /// The image at the leading edge.
    public let imageView = ImageView(contentMode: .aspectFill)
    private var row: StandardRow?

    /// An empty row.
    public init() {
        super.init(reuseIdentifier: "strata.standard")
        titleLabel.fontRole = \.fonts.rowTitle
        detailLabel.fontRole = \.fonts.caption
        detailLabel.textColorRole = \.colors.secondaryText
        imageView.cornerRadius = 6
        imageView.clipsToBounds = true
        for layer in [imageView, titleLabel, detailLabel] as [Layer] { addSublayer(layer) }
    }

    /// Shows `row`.
    public func configure(with row: StandardRow) {
        self.row = row
        titleLabel.text = row.title
        detailLabel.text = row.detail
        detailLabel.numberOfLines = row.style == .subtitle ? row.detailLines : 1
        imageView.image = row.image
        imageView.isHidden = row.image == nil
        accessibilityDidChange()
    }

    /// The row's title, as the list's users know the item; its detail is read after it (the
    /// element's help).
    public override var accessibilityItemLabel: String { row?.title ?? "" }

    /// A list item named by its title, described by its detail.
    public override var accessibilityElement: AccessibilityElement? {
        guard var element = super.accessibilityElement else { return nil }
        if accessibility == nil, let detail = row?.detail, !detail.isEmpty { element.help = detail }
        return element
    }

    public override func layoutSpec() -> LayoutSpec? {
        guard let row else { return nil }
        var texts: [LayoutSpec] = [.layer(titleLabel).flex(shrink: 1)]
        if !row.detail.isEmpty { texts.append(row.style == .value ? .layer(detailLabel).flex(shrink: 0) : .layer(detailLabel)) }
        let body: LayoutSpec = row.style == .value
            ? .stack(.horizontal, spacing: 12, alignItems: .center, [texts[0].flex(grow: 1)] + texts.dropFirst())
            : .stack(.vertical, spacing: 2, alignItems: .stretch, texts)
        var parts: [LayoutSpec] = []
        if row.image != nil { parts.append(.layer(imageView).frame(width: .points(row.imageSize.width), height: .points(row.imageSize.height))) }
        parts.append(body.flex(grow: 1, shrink: 1, basis: 0))
        return .inset(EdgeInsets(horizontal: 16, vertical: 10), .stack(.horizontal, spacing: 12, alignItems: .center, parts))
    }
}
