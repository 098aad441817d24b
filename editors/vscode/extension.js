// mcp-lint for VS Code: starts `mcp-lint server` (a language server on stdio) for the files mcp-lint
// reads, and adds three commands. Findings, quick fixes and `source.fixAll.mcp-lint` come from the server.
'use strict';

const childProcess = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const vscode = require('vscode');
const { LanguageClient, State } = require('vscode-languageclient/node');

// The oldest mcp-lint whose server rereads `mcp-lint.toml` on `workspace/didChangeWatchedFiles`.
const MIN_VERSION = '0.1.0';
const INSTALL = 'cargo install --locked --path .';
const FIX_ALL_KIND = 'source.fixAll.mcp-lint';
// What the server checks (its file types are decided by extension, as `mcp-lint check` does).
const DOCUMENTS = [
  { scheme: 'file', language: 'rust' },
  { scheme: 'file', pattern: '**/*.{rs,json,jsonc,jsonl,ndjson}' },
];
// Files whose change on disk changes which rules apply or what a crate uses.
const WATCHED = '**/{mcp-lint.toml,.mcp-lint.toml,Cargo.toml,Cargo.lock}';

let client;
let output;
let watcher;

async function activate(context) {
  output = vscode.window.createOutputChannel('mcp-lint', { log: true });
  watcher = vscode.workspace.createFileSystemWatcher(WATCHED);
  context.subscriptions.push(
    output,
    watcher,
    vscode.commands.registerCommand('mcpLint.fixAll', fixAll),
    vscode.commands.registerCommand('mcpLint.restart', restart),
    vscode.commands.registerCommand('mcpLint.showOutput', () => output.show(true)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('mcpLint')) restart();
    }),
  );
  await start();
}

async function deactivate() {
  await stop();
}

async function start() {
  const settings = vscode.workspace.getConfiguration('mcpLint');
  if (!settings.get('enable', true)) {
    output.info('mcp-lint is disabled (mcpLint.enable is false)');
    return;
  }
  const binary = findBinary(settings.get('path', ''));
  if (!binary) {
    complain(`mcp-lint was not found on PATH nor in ~/.cargo/bin. Install it from its checkout with \`${INSTALL}\`, or set mcpLint.path.`);
    return;
  }
  const version = await versionOf(binary);
  if (!version) {
    complain(`${binary} --version did not answer as mcp-lint does. Install mcp-lint with \`${INSTALL}\`, or set mcpLint.path.`);
    return;
  }
  if (compareVersions(version, MIN_VERSION) < 0) {
    complain(`${binary} is mcp-lint ${version}; this extension needs ${MIN_VERSION} or later. Update it with \`${INSTALL}\`.`);
    return;
  }
  output.info(`starting ${binary} server (mcp-lint ${version})`);
  const args = ['server', ...settings.get('args', [])];
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  client = new LanguageClient(
    'mcpLint',
    'mcp-lint',
    { command: binary, args, options: { cwd } },
    {
      documentSelector: DOCUMENTS,
      outputChannel: output,
      synchronize: { fileEvents: watcher },
    },
  );
  try {
    await client.start();
  } catch (e) {
    complain(`mcp-lint server did not start: ${e.message || e}`);
  }
}

async function stop() {
  const running = client;
  client = undefined;
  if (running && running.state !== State.Stopped) {
    await running.stop().catch((e) => output.warn(`stopping the server: ${e.message || e}`));
  }
}

async function restart() {
  await stop();
  await start();
}

// Every safe fix of the active document at once: the server's `source.fixAll.mcp-lint` action.
async function fixAll() {
  const editor = vscode.window.activeTextEditor;
  if (!editor || !client) {
    vscode.window.showInformationMessage('mcp-lint: open a file mcp-lint checks first.');
    return;
  }
  const doc = editor.document;
  const whole = new vscode.Range(0, 0, doc.lineCount, 0);
  const actions = await vscode.commands.executeCommand('vscode.executeCodeActionProvider', doc.uri, whole, FIX_ALL_KIND);
  const fix = (actions || []).find((a) => a.kind && a.kind.value === FIX_ALL_KIND && a.edit);
  if (!fix) {
    vscode.window.showInformationMessage('mcp-lint: no safe fixes in this file.');
    return;
  }
  await vscode.workspace.applyEdit(fix.edit);
}

// The setting if given (`~` expanded), else `mcp-lint` on PATH, else cargo's install folder.
function findBinary(setting) {
  if (setting) {
    return setting.startsWith('~/') ? path.join(os.homedir(), setting.slice(2)) : setting;
  }
  const name = process.platform === 'win32' ? 'mcp-lint.exe' : 'mcp-lint';
  const dirs = (process.env.PATH || '').split(path.delimiter).filter(Boolean);
  dirs.push(path.join(os.homedir(), '.cargo', 'bin'));
  return dirs.map((dir) => path.join(dir, name)).find(isExecutable);
}

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

// `mcp-lint --version` prints `mcp-lint 0.1.0`; anything else (or nothing within 10 s) is no version.
function versionOf(binary) {
  return new Promise((resolve) => {
    childProcess.execFile(binary, ['--version'], { timeout: 10000 }, (error, stdout) => {
      const found = !error && /^mcp-lint (\d+\.\d+\.\d+)/.exec(String(stdout).trim());
      resolve(found ? found[1] : undefined);
    });
  });
}

function compareVersions(a, b) {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i++) {
    if (x[i] !== y[i]) return x[i] - y[i];
  }
  return 0;
}

function complain(message) {
  output.error(message);
  vscode.window.showErrorMessage(message, 'Show output').then((choice) => {
    if (choice) output.show(true);
  });
}

module.exports = { activate, deactivate };
