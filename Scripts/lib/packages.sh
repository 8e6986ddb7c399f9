# Installs the Debian packages Strata needs, only those missing. Sourced by the Scripts.
# Works as root, and through sudo otherwise.

STRATA_PACKAGES=(
    # C libraries bound by the system-library targets
    libwayland-dev libxkbcommon-dev libpixman-1-dev libfreetype-dev libfontconfig-dev
    libharfbuzz-dev libpng-dev zlib1g-dev libicu-dev libsystemd-dev
    # image decoders: JPEG (with its EXIF orientation), WebP still and animated, GIF
    libjpeg62-turbo-dev libexif-dev libwebp-dev libgif-dev
    # a private session bus for the D-Bus tests, and the desktop's appearance settings to follow:
    # the portal with its GTK backend, GNOME's schemas, gsettings and dconf behind them
    dbus-daemon dbus-bin xdg-desktop-portal xdg-desktop-portal-gtk gsettings-desktop-schemas
    libglib2.0-bin dconf-service dconf-gsettings-backend
    # protocol XML, the test compositor, and the pinned fonts for golden images
    wayland-protocols weston fonts-dejavu-core fonts-wqy-microhei
    # colour emoji (CBDT) and Thai, for the text tests and the feed; Unicode's conformance files
    fonts-noto-color-emoji fonts-thai-tlwg unicode-data
    # the second test compositor, with a seat for the input end-to-end tests, and its screenshots
    sway grim
    # real clipboard peers and a second virtual keyboard (with its own keymap) for the text tests
    wl-clipboard wtype
    # the locales' Compose tables, for dead keys in text fields
    libx11-data
    # cursor images: Adwaita has the CSS cursor names (Debian's default cursor theme); the X11
    # themes exercise the fallback names
    adwaita-icon-theme xcursor-themes
    # accessibility: the AT-SPI bus launcher and registry, the role and state numbers' header, and
    # pyatspi (Orca's library) for the end-to-end tests, run with Debian's /usr/bin/python3
    at-spi2-core libatspi2.0-dev python3-pyatspi
    # Orca itself, Debian 12's screen reader, for the test that listens to it; it needs an X
    # server for its keyboard map even on Wayland, which Xwayland gives it
    orca xwayland
    pkg-config
)

strata_install_packages() {
    local missing=() package
    for package in "${STRATA_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0

    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "strata: need root or sudo to install: ${missing[*]}" >&2; return 1; }
        sudo=(sudo)
    fi
    echo "strata: installing ${missing[*]}" >&2
    "${sudo[@]}" apt-get update -qq >&2 || return 1
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}
