"""Lists the public symbols of Strata's modules that have no doc comment, from the symbol graphs
`swift package dump-symbol-graph` writes. Exits 1 when there is any. Symbols with no source
location (synthesized conformances) and those that inherit a protocol's documentation are not
counted: DocC shows the inherited text."""
import glob, json, os, sys

MODULES = {"StrataPlatform", "StrataRender", "StrataCore", "StrataWidgets", "StrataWayland",
           "Strata", "WaylandClient", "WaylandProtocols", "Locking", "StrataDBus", "StrataDesktop"}

def main(directory):
    missing = []
    for path in sorted(glob.glob(os.path.join(directory, "*.symbols.json"))):
        module = os.path.basename(path).split(".symbols")[0].split("@")[0]
        if module not in MODULES:
            continue
        with open(path) as file:
            graph = json.load(file)
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open") or "location" not in symbol:
                continue
            if symbol.get("docComment", {}).get("lines"):
                continue
            location = symbol["location"]
            source = location["uri"].split("/Sources/", 1)[-1]
            line = location["position"]["line"] + 1
            missing.append(f"Sources/{source}:{line}: {'.'.join(symbol['pathComponents'])} has no doc comment")
    for entry in sorted(set(missing)):
        print(entry)
    if missing:
        print(f"{len(set(missing))} public symbols have no doc comment", file=sys.stderr)
        return 1
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
