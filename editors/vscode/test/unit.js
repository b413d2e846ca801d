// The extension's parts that run without VS Code: the grammar, tokenized by
// VS Code's own TextMate engine (vscode-textmate and vscode-oniguruma, from
// code-server's modules), and the program lookup and server arguments of
// extension.js. Run by vscode_test.go; exits 1 with the differences.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const Module = require('module');

const ext = path.join(__dirname, '..');
const vsModules = path.join(ext, 'node_modules', 'code-server', 'lib', 'vscode', 'node_modules');
const textmate = require(path.join(vsModules, 'vscode-textmate'));
const oniguruma = require(path.join(vsModules, 'vscode-oniguruma'));

const failures = [];
function check(ok, what) {
  if (!ok) {
    failures.push(what);
  }
}

// the scopes the grammar gives each token of the text
async function tokenize(text) {
  const wasm = fs.readFileSync(path.join(vsModules, 'vscode-oniguruma', 'release', 'onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (s) => new oniguruma.OnigScanner(s),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scope) => {
      if (scope !== 'source.nginx') {
        return null;
      }
      const p = path.join(ext, 'syntaxes', 'nginx.tmLanguage.json');
      return textmate.parseRawGrammar(fs.readFileSync(p, 'utf8'), p);
    },
  });
  const grammar = await registry.loadGrammar('source.nginx');
  const tokens = [];
  let stack = textmate.INITIAL;
  for (const line of text.split('\n')) {
    const r = grammar.tokenizeLine(line, stack);
    for (const t of r.tokens) {
      tokens.push({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes.join(' ') });
    }
    stack = r.ruleStack;
  }
  return tokens;
}

async function grammar() {
  const tokens = await tokenize([
    '# a comment',
    'http {',
    '    map $uri $dest {',
    '        default 0;',
    '        ~^/old/(?<rest>.*) /new/$rest;',
    '        /exact 1;',
    '    }',
    '    types { text/html html; }',
    '    server {',
    '        listen 80; # the port',
    '        set $a "x${host}y";',
    "        add_header X-A 'b$a';",
    '        location = /exact { return 204; }',
    '        location ^~ /static/ { expires 30d; }',
    '        location ~* \\.(png|jpe?g)$ { gzip off; }',
    '        location ~ ^/api/(?<v>v[0-9]+) {',
    '            proxy_pass http://app$request_uri;',
    '        }',
    '        location @fallback { }',
    '        if ($http_user_agent ~* "bot|crawl") {',
    '            return 403;',
    '        }',
    '    }',
    '}',
  ].join('\n'));
  // the first token with this text has a scope matching re ('$' and '#'
  // are tokens of their own)
  const want = [
    ['#', /comment\.line.*punctuation\.definition\.comment/],
    [' a comment', /comment\.line/],
    ['http', /keyword\.control\.block/],
    ['map', /keyword\.control\.block/],
    ['uri', /variable\.other/],
    ['default', /keyword\.other\.directive/],
    ['~^/old/(?<rest>.*)', /string\.regexp/],
    ['/exact', /string\.unquoted\.key/],
    ['rest', /variable\.other/],
    ['text/html', /string\.unquoted\.key/],
    ['types', /keyword\.control\.block/],
    ['listen', /keyword\.other\.directive/],
    ['80', /constant\.numeric/],
    [' the port', /comment\.line/],
    ['"', /string\.quoted\.double/],
    ['${', /variable\.other/],
    ['host', /string\.quoted\.double.*variable\.other/],
    ['b', /string\.quoted\.single/],
    ['=', /keyword\.operator\.location/],
    ['^~', /keyword\.operator\.location/],
    ['~*', /keyword\.operator\.regexp/],
    ['\\.(png|jpe?g)$', /string\.regexp/],
    ['^/api/(?<v>v[0-9]+)', /string\.regexp/],
    ['request_uri', /variable\.other/],
    ['@fallback', /entity\.name\.function/],
    ['if', /keyword\.control\.conditional/],
    ['"bot|crawl"', /string\.regexp/],
    ['off', /constant\.language/],
    ['30d', /constant\.numeric/],
    ['return', /keyword\.other\.directive/],
  ];
  for (const [text, re] of want) {
    const t = tokens.find((x) => x.text === text);
    check(t && re.test(t.scopes), `token ${JSON.stringify(text)}: ${t ? t.scopes : 'no such token'}, want ${re}`);
  }
}

function extension() {
  // extension.js outside VS Code: its vscode module is a stand-in
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
  };
  require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: {} };
  const { findProgram, serverArgs } = require(path.join(ext, 'extension.js'));

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nginxtune-vscode-'));
  try {
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'nginxtune'), '#!/bin/sh\n', { mode: 0o755 });
    // a relative PATH entry (the workspace, as the current directory) is
    // not searched; an absolute one is
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      check(findProgram('', { PATH: `bin${path.delimiter}/nonexistent` }, 'linux') === undefined, 'a relative PATH entry was searched');
    } catch (e) {
      check(/not found in PATH/.test(e.message), `relative PATH entry: ${e.message}`);
    } finally {
      process.chdir(cwd);
    }
    check(findProgram('', { PATH: bin }, 'linux') === path.join(bin, 'nginxtune'), 'nginxtune not found in PATH');
    check(findProgram('/opt/x/nginxtune', {}, 'linux') === '/opt/x/nginxtune', 'an absolute path is not taken as it is');
    let refused = false;
    try {
      findProgram('bin/nginxtune', { PATH: bin }, 'linux');
    } catch {
      refused = true;
    }
    check(refused, 'a relative nginxtune.path was taken');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const args = serverArgs({ nginxVersion: ' 1.24.0 ', facts: 'facts.yaml' }, '/ws');
  check(JSON.stringify(args) === JSON.stringify(['lsp', '--nginx-version', '1.24.0', '--facts', path.join('/ws', 'facts.yaml')]), `serverArgs: ${args}`);
  check(JSON.stringify(serverArgs({ facts: '/abs/f.yaml' }, '/ws')) === JSON.stringify(['lsp', '--facts', '/abs/f.yaml']), 'serverArgs: an absolute facts file');
  check(JSON.stringify(serverArgs({}, undefined)) === JSON.stringify(['lsp']), 'serverArgs: no settings');
}

(async () => {
  await grammar();
  extension();
  if (failures.length > 0) {
    console.error(failures.join('\n'));
    process.exit(1);
  }
})().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
