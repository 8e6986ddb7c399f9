// reading-list: the shortest whole app — a header, a button, a list of two-line rows and a
// footer, laid out by specs, with no frame computed and no measuring written by hand. Click a
// row to mark it read; "Add" puts a new article at the end and scrolls to it.
import Glibc
import Strata

struct Article: Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var summary: String
    var isRead = false
}

final class ArticleCell: ListCell, ListItemCell {
    let title = Label(font: Font(size: 15, weight: .semibold))
    let summary = Label(font: Font(size: 13), color: Color(rgb: 0x6B7280))

    init() {
        super.init(reuseIdentifier: "article")
        backgroundColor = .white
        summary.numberOfLines = 2
        addSublayer(title)
        addSublayer(summary)
    }

    func configure(with article: Article) {
        title.text = (article.isRead ? "✓ " : "") + article.title
        summary.text = article.summary
    }

    override func layoutSpec() -> LayoutSpec? {
        .inset(EdgeInsets(horizontal: 16, vertical: 10), .stack(.vertical, spacing: 4, alignItems: .stretch, [.layer(title), .layer(summary)]))
    }
}

func article(_ id: Int) -> Article {
    Article(id: id, title: "Article \(id + 1)",
            summary: "Why layout belongs on a worker thread, and what a list must cache so that scrolling never waits for text.")
}

@MainActor
func run() throws {
    let session = try WaylandSession.connect()
    let window = try Window(session: session, title: "Reading list", appID: "strata-reading-list", size: Size(width: 420, height: 560))
    window.backgroundColor = Color(rgb: 0xF3F4F6)

    let header = Label(text: "Reading list", font: Font(size: 22, weight: .bold))
    let add = Button(title: "Add")
    let footer = Label(text: "", font: Font(size: 12), color: Color(rgb: 0x6B7280))
    let list = ListView()
    list.cornerRadius = 10
    list.clipsToBounds = true
    let articles = ListItems<ArticleCell>(list: list, items: (0..<50).map(article))

    func updateFooter() {
        footer.text = "\(articles.items.filter(\.isRead).count) of \(articles.items.count) read"
    }
    // What changed is said to a screen reader: the row's tick and the footer's count change
    // away from the focus.
    articles.onSelect = { _, index in
        articles.update(itemAt: index) { $0.isRead.toggle() }
        updateFooter()
        let item = articles.items[index]
        list.announceForAccessibility("\(item.isRead ? "Read" : "Unread"): \(item.title). \(footer.text)")
    }
    add.addAction(for: .primaryActionTriggered) { _ in
        articles.apply(articles.items + [article(articles.items.count)])
        list.scrollToItem(at: articles.items.count - 1, animated: true)
        updateFooter()
        add.announceForAccessibility("Added \(articles.items[articles.items.count - 1].title). \(footer.text)")
    }
    updateFooter()

    for layer in [header, add, list, footer] as [Layer] { window.contentLayer.addSublayer(layer) }
    window.contentLayer.layoutSpecHandler = { _ in
        .inset(EdgeInsets(all: 16), .stack(.vertical, spacing: 12, alignItems: .stretch, [
            .stack(.horizontal, alignItems: .center, [.layer(header), .spacer(), .layer(add)]),
            .layer(list).flex(grow: 1),
            .layer(footer),
        ]))
    }
    try session.run()
}

do {
    try run()
} catch {
    print("reading-list: \(error)")
    exit(1)
}
