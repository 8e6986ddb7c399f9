import Dispatch
import Glibc
import SystemPackage

// libdispatch's hooks for a run loop that serves the main queue: CoreFoundation's run loop uses
// them on Linux, and so does MainLoop, so that DispatchQueue.main and @MainActor work run on the
// main thread while Strata's loop runs. Exported by libdispatch.so; not in its public headers.
@_silgen_name("_dispatch_get_main_queue_handle_4CF")
private func _dispatchMainQueueHandle() -> Int32

@_silgen_name("_dispatch_main_queue_callback_4CF")
private func _dispatchMainQueueCallback(_ message: UnsafeMutableRawPointer?)

enum DispatchMainQueue {
    /// An eventfd that becomes readable when the main queue has work.
    static var handle: Int32 { _dispatchMainQueueHandle() }

    /// Runs the main queue's pending work. Must be called on the main thread.
    static func drain(_ handle: FileDescriptor) {
        _ = try? SystemCall.readCounter(handle, name: "read(main queue)")
        _dispatchMainQueueCallback(nil)
    }
}
