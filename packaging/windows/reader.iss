; Inno Setup script for the Windows installer of reader.
; Build the one-folder app first (python packaging\build.py), then:
;   iscc /DVersion=0.3.0 packaging\windows\reader.iss
; Output: build\reader-<version>-windows-x64-setup.exe
; Installs per user (no administrator rights needed), adds a Start menu entry
; and an optional desktop icon, and registers nothing else.

#ifndef Version
  #define Version "0.3.0"
#endif

[Setup]
AppId={{6E3F1B7A-2C4D-4E8F-9A1B-5C7D3E9F0A21}
AppName=reader
AppVersion={#Version}
AppPublisher=reader
DefaultDirName={localappdata}\Programs\reader
DefaultGroupName=reader
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\build
OutputBaseFilename=reader-{#Version}-windows-x64-setup
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
UninstallDisplayIcon={app}\reader.exe
LicenseFile=..\..\LICENSE

[Tasks]
Name: "desktopicon"; Description: "Create a desktop icon"; Flags: unchecked

[Files]
Source: "..\..\build\dist\reader\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\reader"; Filename: "{app}\reader.exe"
Name: "{autodesktop}\reader"; Filename: "{app}\reader.exe"; Tasks: desktopicon

[Run]
; The self-test proves the installed copy works before the user relies on it.
Filename: "{app}\reader-console.exe"; Parameters: "--selftest"; StatusMsg: "Checking the installation..."; Flags: runhidden waituntilterminated
Filename: "{app}\reader.exe"; Description: "Start reader"; Flags: nowait postinstall skipifsilent
