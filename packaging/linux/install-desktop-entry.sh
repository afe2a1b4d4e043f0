#!/bin/sh
# Add reader to the desktop's application menu (for this user only), pointing at
# this folder. Run it again after moving the folder; remove the entry with --remove.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
entry="${XDG_DATA_HOME:-$HOME/.local/share}/applications/reader.desktop"
if [ "${1:-}" = "--remove" ]; then
    rm -f "$entry"
    echo "Removed $entry"
    exit 0
fi
mkdir -p "$(dirname "$entry")"
sed -e "s|@EXEC@|\"$here/reader\"|" -e "s|@ICON@|$here/reader.png|" "$here/reader.desktop.in" > "$entry"
chmod 644 "$entry"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$(dirname "$entry")" || true
echo "reader is in your application menu now ($entry)."
