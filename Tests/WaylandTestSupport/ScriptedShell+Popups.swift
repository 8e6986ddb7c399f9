import CWaylandServer
import WaylandProtocols

/// The scripted shell's `xdg_positioner` and `xdg_popup`: rules recorded as they come, popups
/// placed by `PositionerRules.placement` against `popupBounds`, and grabs, repositions and
/// dismissals answered as the test scripts. Server thread only, like the shell.
extension ScriptedShell {
    func positionerRequest(_ resource: OpaquePointer, opcode: UInt32, _ args: UnsafeMutablePointer<wl_argument>) {
        let request: PositionerRequest
        switch opcode {
        case 1: request = .setSize(width: args[0].i, height: args[1].i)
        case 2: request = .setAnchorRect(ShellRect(x: args[0].i, y: args[1].i, width: args[2].i, height: args[3].i))
        case 3: request = .setAnchor(args[0].u)
        case 4: request = .setGravity(args[0].u)
        case 5: request = .setConstraintAdjustment(args[0].u)
        case 6: request = .setOffset(x: args[0].i, y: args[1].i)
        case 7: request = .setReactive
        case 8: request = .setParentSize(width: args[0].i, height: args[1].i)
        case 9: request = .setParentConfigure(args[0].u)
        default: return
        }
        positioners[resource, default: PositionerRules()].apply(request)
        observations.withLock { $0.positionerRequests.append(request) }
    }

    func makePopup(_ xdgSurface: OpaquePointer, client: OpaquePointer, version: Int32, _ args: UnsafeMutablePointer<wl_argument>) {
        let popup = make(XdgPopup.self, client, version, id: args[0].n, kind: .popup)
        guard let surface = surfaces.first(where: { $0.xdgSurface == xdgSurface }) else { return }
        let parent = args[1].o.flatMap { parent in surfaces.first { $0.xdgSurface == parent } }
        surface.popup = popup
        surface.parent = parent
        let rules = args[2].o.flatMap { positioners[$0] } ?? PositionerRules()
        let observation = PopupObservation(surface: wl_resource_get_id(surface.resource),
                                           parent: parent.map { wl_resource_get_id($0.resource) } ?? 0, rules: rules)
        observations.withLock {
            $0.popups.append(observation)
            $0.livePopups += 1
        }
    }

    func popupRequest(_ resource: OpaquePointer, opcode: UInt32, _ args: UnsafeMutablePointer<wl_argument>) {
        guard let surface = surfaces.first(where: { $0.popup == resource }) else {
            if opcode == 0 { wl_resource_destroy(resource) }
            return
        }
        let id = wl_resource_get_id(surface.resource)
        switch opcode {
        case 0:
            if surfaces.contains(where: { $0.popup != nil && $0.parent === surface }) {
                observations.withLock { $0.popupsDestroyedBeforeChildren += 1 }
            }
            wl_resource_destroy(resource)
        case 1:
            let serial = args[1].u
            record(id) { $0.grabSerial = serial }
            if surface.isMapped {
                postError(on: resource, code: XdgPopup.ErrorCode.invalidGrab.rawValue, "xdg_popup is already mapped")
            } else if !inputSerials.withLock({ $0.contains(serial) }) {
                switch grabAnswer {
                case .dismiss: sendPopupDone(surface)
                case .protocolError: postError(on: resource, code: XdgPopup.ErrorCode.invalidGrab.rawValue, "grab with an unknown serial")
                case .accept: break
                }
            }
        case 2:
            let token = args[1].u
            let rules = args[0].o.flatMap { positioners[$0] } ?? PositionerRules()
            record(id) {
                $0.rules = rules
                $0.repositionTokens.append(token)
            }
            var arguments = [wl_argument(u: token)]
            wl_resource_post_event_array(resource, 2, &arguments)
            placeAndConfigure(surface)
        default:
            break
        }
    }

    /// Places the popup by its rules and configures it there.
    func placeAndConfigure(_ surface: Surface) {
        let id = wl_resource_get_id(surface.resource)
        guard let rules = observations.withLock({ $0.popups.last { $0.surface == id && $0.isLive }?.rules }) else { return }
        let origin = surface.parent.map(absoluteOrigin) ?? toplevelOrigin
        sendConfigure(surface, rules.placement(parentOrigin: origin, bounds: popupBounds))
    }

    func configurePopup(surface id: UInt32, _ placement: ShellRect) {
        guard let surface = surfaces.first(where: { $0.popup != nil && wl_resource_get_id($0.resource) == id }) else { return }
        sendConfigure(surface, placement)
    }

    func dismissPopup(surface id: UInt32) {
        guard let surface = surfaces.first(where: { $0.popup != nil && wl_resource_get_id($0.resource) == id }) else { return }
        sendPopupDone(surface)
    }

    /// The popup's surface is going (or its popup object): it no longer counts as live.
    func popupGone(_ surface: Surface) {
        surface.popup = nil
        let id = wl_resource_get_id(surface.resource)
        observations.withLock { observed in
            guard let index = observed.popups.lastIndex(where: { $0.surface == id && $0.isLive }) else { return }
            observed.popups[index].isLive = false
            observed.livePopups -= 1
        }
    }

    /// The client is destroying `surface`'s xdg_surface or wl_surface: a popup opened from it
    /// must have gone first.
    func parentGoing(_ surface: Surface) {
        if surfaces.contains(where: { $0.popup != nil && $0.parent === surface }) {
            observations.withLock { $0.parentsDestroyedBeforePopups += 1 }
        }
    }

    // MARK: Events

    /// Where a surface's window geometry sits in the bounds: a toplevel's at `toplevelOrigin`,
    /// a popup's where it was placed against its parent's.
    private func absoluteOrigin(_ surface: Surface) -> (Int32, Int32) {
        guard surface.popup != nil, let placement = surface.placement else { return toplevelOrigin }
        let parent = surface.parent.map(absoluteOrigin) ?? toplevelOrigin
        return (parent.0 + placement.x, parent.1 + placement.y)
    }

    private func sendConfigure(_ surface: Surface, _ placement: ShellRect) {
        guard let popup = surface.popup, let xdgSurface = surface.xdgSurface else { return }
        surface.placement = placement
        record(wl_resource_get_id(surface.resource)) { $0.placement = placement }
        var arguments = [wl_argument(i: placement.x), wl_argument(i: placement.y), wl_argument(i: placement.width),
                         wl_argument(i: placement.height)]
        wl_resource_post_event_array(popup, 0, &arguments)
        serial += 1
        var surfaceArguments = [wl_argument(u: serial)]
        wl_resource_post_event_array(xdgSurface, 0, &surfaceArguments)
    }

    /// `popup_done` to `surface`'s popup and, first, to every popup above it, topmost first, as
    /// the protocol says compositors dismiss them.
    private func sendPopupDone(_ surface: Surface) {
        let above = surfaces.filter { other in
            var parent = other.parent
            while let current = parent, current !== surface { parent = current.parent }
            return other.popup != nil && parent === surface
        }
        // Surfaces are kept in order of creation, so the newest is the topmost.
        for target in above.reversed() + [surface] {
            guard let popup = target.popup else { continue }
            wl_resource_post_event_array(popup, 1, nil)
            let id = wl_resource_get_id(target.resource)
            observations.withLock { $0.popupsDone.append(id) }
        }
    }

    /// A protocol error as libwayland-server's `wl_resource_post_error` sends it (which Swift
    /// cannot call: it is variadic): `wl_display.error` on the client's display object.
    private func postError(on resource: OpaquePointer, code: UInt32, _ message: String) {
        guard let client = wl_resource_get_client(resource), let display = wl_client_get_object(client, 1) else { return }
        message.withCString { text in
            var arguments = [wl_argument(o: resource), wl_argument(u: code), wl_argument(s: text)]
            wl_resource_post_event_array(display, 0, &arguments)
        }
        let name = String(cString: wl_resource_get_class(resource))
        observations.withLock { $0.protocolErrors.append("\(name): \(code)") }
    }

    private func record(_ surface: UInt32, _ change: (inout PopupObservation) -> Void) {
        observations.withLock { observed in
            guard let index = observed.popups.lastIndex(where: { $0.surface == surface && $0.isLive }) else { return }
            change(&observed.popups[index])
        }
    }
}
