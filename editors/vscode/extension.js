// nginxtune's VS Code extension: starts `nginxtune lsp` for nginx files and
// hands it to VS Code's language client (diagnostics, hover, completion,
// navigation, quick fixes, and the document formatter).
'use strict';

const fs = require('fs');
const path = require('path');
const vscode = require('vscode');

let client;

// findProgram gives the program to start for the nginxtune.path setting: an
// absolute path as it is, a bare name looked up in PATH's absolute
// directories only. Not the workspace folder (a name without a directory is
// looked up in the current directory first on Windows) and no relative path:
// the tree being edited never chooses what runs.
function findProgram(setting, env, platform) {
  const name = setting || 'nginxtune';
  if (path.isAbsolute(name)) {
    return name;
  }
  if (name.includes('/') || name.includes('\\')) {
    throw new Error(`nginxtune.path: "${name}" is relative; give an absolute path or a name found in PATH`);
  }
  const exts = platform === 'win32' ? (env.PATHEXT || '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of (env.PATH || env.Path || '').split(path.delimiter)) {
    if (!path.isAbsolute(dir)) {
      continue;
    }
    for (const ext of exts) {
      const p = path.join(dir, name + ext);
      try {
        if (fs.statSync(p).isFile()) {
          fs.accessSync(p, fs.constants.X_OK);
          return p;
        }
      } catch {
        // not here
      }
    }
  }
  throw new Error(`nginxtune.path: "${name}" is not found in PATH; install nginxtune or set nginxtune.path to its absolute path`);
}

// serverArgs gives `nginxtune lsp`'s arguments for the settings: the nginx
// version and the facts file, a relative one read from the first workspace
// folder.
function serverArgs(settings, folder) {
  const args = ['lsp'];
  const version = (settings.nginxVersion || '').trim();
  if (version) {
    args.push('--nginx-version', version);
  }
  const facts = (settings.facts || '').trim();
  if (facts) {
    args.push('--facts', path.isAbsolute(facts) || !folder ? facts : path.join(folder, facts));
  }
  return args;
}

function settingsNow() {
  const c = vscode.workspace.getConfiguration('nginxtune');
  return { path: c.get('path'), nginxVersion: c.get('nginxVersion'), facts: c.get('facts') };
}

async function start() {
  const s = settingsNow();
  const folders = vscode.workspace.workspaceFolders || [];
  const folder = folders.length > 0 && folders[0].uri.scheme === 'file' ? folders[0].uri.fsPath : undefined;
  let command;
  try {
    command = findProgram(s.path, process.env, process.platform);
  } catch (e) {
    vscode.window.showErrorMessage(e.message);
    return;
  }
  const server = { command, args: serverArgs(s, folder), options: { cwd: folder || path.dirname(command) } };
  // (required here: findProgram and serverArgs load without VS Code)
  const { LanguageClient } = require('vscode-languageclient/node');
  client = new LanguageClient('nginxtune', 'nginxtune', server, {
    documentSelector: [
      { scheme: 'file', language: 'nginx' },
      { scheme: 'untitled', language: 'nginx' },
    ],
  });
  try {
    await client.start();
  } catch (e) {
    vscode.window.showErrorMessage(`nginxtune lsp: ${e.message}`);
  }
}

async function stop() {
  const c = client;
  client = undefined;
  if (c) {
    await c.stop();
  }
}

async function activate(context) {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('nginxtune')) {
        await stop();
        await start();
      }
    }),
    vscode.commands.registerCommand('nginxtune.restart', async () => {
      await stop();
      await start();
    }),
  );
  await start();
}

function deactivate() {
  return stop();
}

module.exports = { activate, deactivate, findProgram, serverArgs };
