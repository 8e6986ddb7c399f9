import StrataRender

/// A layer that takes text from an input method while it has the focus: a text field, a text
/// view. The platform's input method connection (`LayerHost.textInput`) reads its state and
/// edits it through this. Main actor only.
@MainActor
public protocol TextInputClient: Layer {
    /// Whether the input method may edit now: false while the text is read-only, which
    /// disables the input method as if the focus had left.
    var acceptsTextInput: Bool { get }
    /// What the input method edits: the text, the selection and the marked (preedit) text.
    var textInputEditor: TextEditor { get }
    /// What the text is, so the input method can offer the right keyboard and suggestions.
    var textInputContentType: TextContentType { get }
    /// Whether the text may be offered to the input method as surrounding text; false for
    /// secure entry, whose text never leaves the field.
    var offersSurroundingText: Bool { get }
    /// The caret, or the preedit's cursor, in the layer's own coordinates: where the input
    /// method places its candidate window.
    var textInputCursorRect: Rect { get }
    /// Applies an input method's edit as one change, and shows it. A failure is the client's to
    /// report; the text stays as the edit left it.
    func applyTextInput(_ edit: (inout TextEditor) throws(RenderError) -> Void)
}

/// The platform's input method connection for a host's surface: a window's seat's
/// `zwp_text_input_v3`, or one an embedding client forwards. Main actor only.
@MainActor
public protocol TextInputBackend: AnyObject {
    /// The host's focused layer changed: the input method follows it to the new layer when that
    /// is a `TextInputClient`, and is disabled otherwise.
    func focusChanged(in host: LayerHost)
    /// `client`'s text, selection, caret, content type or `acceptsTextInput` changed, not by
    /// the input method's hand: the input method hears the new state when the client is the one
    /// it serves.
    func clientChanged(_ client: any TextInputClient)
}

extension TextInputClient {
    /// Tells the host's input method connection that this client's state changed.
    public func textInputStateChanged() {
        host?.textInput?.clientChanged(self)
    }
}
