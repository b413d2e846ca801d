#!/usr/bin/env bash
# Installs the VS Code extension's node modules (editors/vscode/node_modules)
# from editors/vscode/package-lock.json, npm's registry alone: the language
# client the extension ships, @vscode/vsce (make vsix), and for its test
# code-server (VS Code in a browser) and playwright-core (drives Chromium).
#
# Nothing runs at install (--ignore-scripts). code-server's own postinstall
# would install VS Code's modules with a dependency fetched from GitHub
# (@vscode/proxy-agent, which npm's registry has with the same content) and
# build kerberos (the GSSAPI headers, for proxy sign-in); its steps are done
# here instead: the registry's proxy-agent, the native modules VS Code's
# server loads built against the installed node's headers, argon2 (password
# hashing, loaded at start) built from source. A stamp of the lock file and
# node's version skips all of it on the next run.
set -euo pipefail
cd "$(dirname "$0")/../editors/vscode"
stamp=node_modules/.nginxtune-deps
want="$(sha256sum package-lock.json | cut -d' ' -f1) node $(node -p process.versions.node)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
# native modules: node's own headers, when the installation has them
# (node-gyp downloads them otherwise)
nodedir=$(node -p 'require("path").resolve(process.execPath, "../..")')
if [ -f "$nodedir/include/node/node.h" ]; then
  export npm_config_nodedir="$nodedir"
fi
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
vs=node_modules/code-server/lib/vscode
sed -i 's#"resolved": "git+ssh://git@github.com/microsoft/vscode-proxy-agent.git\#0803e0a7d1249bcb64ae9d256d0ee732b7246ea5"#"resolved": "https://registry.npmjs.org/@vscode/proxy-agent/-/proxy-agent-0.27.0.tgz"#' "$vs/npm-shrinkwrap.json"
if grep -q '"resolved": "git' "$vs/npm-shrinkwrap.json"; then
  echo "deps-vscode: $vs/npm-shrinkwrap.json still fetches from git" >&2
  exit 1
fi
(cd "$vs" && npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error &&
  npm rebuild --loglevel=error @vscode/spdlog node-pty @parcel/watcher native-watchdog &&
  ln -sfn node_modules node_modules.asar)
npm rebuild --loglevel=error argon2 --build-from-source
echo "$want" > "$stamp"
