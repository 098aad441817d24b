// Drives VS Code's browser build (code-server, already serving a workspace with this extension
// installed) in Debian's Chromium through playwright-core, as a user would: open a Rust file, read the
// Problems panel, apply a quick fix with Ctrl+. and save, the other safe fix with the extension's
// "Fix all safe problems" command, then type a line and watch the findings move.
// tests/vscode.rs starts code-server, runs this script and checks what it reports; the script fails
// (exit 1, with a screenshot) at the first step whose expected state does not appear in time.
//
// Environment: MCP_LINT_E2E_URL (code-server's address), MCP_LINT_E2E_WORKSPACE (the folder it
// serves), MCP_LINT_E2E_FILE (the Rust file, relative to the workspace), MCP_LINT_E2E_ARTIFACTS (where
// screenshots go), MCP_LINT_CHROMIUM (the browser). Prints one JSON report on stdout.
'use strict';

const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const url = need('MCP_LINT_E2E_URL');
const workspace = need('MCP_LINT_E2E_WORKSPACE');
const relative = need('MCP_LINT_E2E_FILE');
const artifacts = need('MCP_LINT_E2E_ARTIFACTS');
const browserPath = process.env.MCP_LINT_CHROMIUM || '/usr/bin/chromium';
const file = path.join(workspace, relative);
const STEP = 60000;
const started = Date.now();

const report = { steps: [] };

function need(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

function log(message) {
  process.stderr.write(`e2e: [${((Date.now() - started) / 1000).toFixed(1)} s] ${message}\n`);
}

async function main() {
  fs.mkdirSync(artifacts, { recursive: true });
  const browser = await chromium.launch({
    executablePath: browserPath,
    headless: true,
    // As root Chromium needs --no-sandbox; the rest keep it off the (closed) network.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 960 } });
  page.setDefaultTimeout(STEP);
  let step = 'load';
  try {
    log(`opening ${url}`);
    await page.goto(`${url}/?folder=${encodeURIComponent(workspace)}`);
    await page.waitForSelector('.monaco-workbench .part.statusbar');

    step = 'open';
    await command(page, 'Control+P', relative);
    await editorShows(page, 'list_roots');

    step = 'findings';
    await page.keyboard.press('Control+Shift+M');
    const findings = await problemsShow(page, (text) =>
      ['server-roots-request', 'roots-list-changed', 'deprecated-feature'].every((rule) => text.includes(rule)),
    );
    await shot(page, '1-findings', { problems: findings });

    step = 'quick-fix';
    // The cursor onto `.enable_roots_list_changed()` (line 16), then Ctrl+. as a user would.
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes('.enable_roots_list_changed()'));
    if (line < 0) throw new Error(`${relative} has no .enable_roots_list_changed() to fix`);
    const column = lines[line].indexOf('enable_roots_list_changed') + 3;
    const title = 'remove `.enable_roots_list_changed()`';
    const menu = page.locator('.action-widget:not(.action-list-submenu-panel)').first();
    // Ctrl+. pressed while the editor is still taking focus back from Go to Line, or before the
    // server's code actions for the line arrived, opens nothing (seen once in CI): then close
    // whatever opened, put the cursor there again and press it again, a few times.
    for (let attempt = 1; ; attempt++) {
      await command(page, 'Control+G', `:${line + 1}:${column}`);
      await page.keyboard.press('Control+.');
      try {
        await menu.getByText(title).first().waitFor({ timeout: Math.min(STEP, 12000) });
        break;
      } catch (err) {
        if (attempt === 4) throw err;
        log(`quick-fix menu not shown (attempt ${attempt}); again`);
        await page.keyboard.press('Escape');
      }
    }
    const offered = await menu.innerText();
    await shot(page, '2-quick-fix-menu', { offered });
    await menu.locator('.monaco-list-row', { hasText: title }).first().click();
    // The quick fix removes the call on line 16 only; line 21 has the same finding. Saved once the
    // edit is in the buffer (the findings show it), so the save cannot come first.
    const afterFix = await problemsShow(page, (text) => !text.includes('[Ln 16, Col 50]') && text.includes('[Ln 21, Col 50]'));
    await page.keyboard.press('Control+S');
    const saved = await diskShows((text) => text.split('.enable_roots_list_changed()').length === 2);
    await shot(page, '3-fixed-and-saved', { problems: afterFix, disk: saved });

    step = 'fix-all';
    // The extension's command, from the Command Palette: every safe fix left in the file.
    await command(page, 'Control+Shift+P', '>mcp-lint: Fix all safe problems');
    const afterFixAll = await problemsShow(page, (text) => !text.includes('roots-list-changed') && text.includes('server-roots-request'));
    await page.keyboard.press('Control+S');
    const fixedAll = await diskShows((text) => !text.includes('enable_roots_list_changed'));
    await shot(page, '4-fix-all-and-saved', { problems: afterFixAll, disk: fixedAll });

    step = 'edit';
    // A new first line: every finding below it moves down one line.
    await command(page, 'Control+G', ':1');
    // (Enter first: after a typed `//` line, Enter would continue the comment onto the next line.)
    await page.keyboard.press('Home');
    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.type('// Notes: a server that reads the client\'s folders.');
    const moved = await problemsShow(page, (text) => text.includes('[Ln 10, Col 35]') && text.includes('[Ln 22, Col 35]'));
    await page.keyboard.press('Control+S');
    const edited = await diskShows((text) => text.startsWith('// Notes:'));
    await shot(page, '5-edited-findings-moved', { problems: moved, disk: edited });
  } catch (e) {
    await shot(page, `failed-at-${step}`, {}).catch(() => {});
    report.failed = { step, error: String((e && e.stack) || e) };
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  process.exitCode = report.failed ? 1 : 0;
}

// A keybinding that opens a quick input (Ctrl+P, Ctrl+G, Ctrl+Shift+P), the text typed into it (in
// place of the prefix it starts with, `:` for go-to-line or `>` for commands), and Enter.
async function command(page, keys, text) {
  await page.keyboard.press(keys);
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(text);
  // Enter only once the entry wanted is listed (a file by its name, a command by its title).
  const wanted = keys === 'Control+P' ? path.basename(text) : keys === 'Control+Shift+P' ? text.slice(1) : null;
  if (wanted) {
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: wanted }).first().waitFor();
  }
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden' });
}

async function editorShows(page, text) {
  await page.locator('.monaco-editor .view-lines', { hasText: text }).first().waitFor();
}

// Waits until the Problems panel's text passes `ok`, and returns that text.
async function problemsShow(page, ok) {
  const panel = page.locator('.markers-panel');
  await panel.waitFor({ state: 'visible' });
  const deadline = Date.now() + STEP;
  let text = '';
  while (Date.now() < deadline) {
    text = await panel.innerText();
    if (ok(text)) return text;
    await page.waitForTimeout(200);
  }
  throw new Error(`the Problems panel never showed what was expected; it shows:\n${text}`);
}

// Waits until the file on disk passes `ok`, and returns its text.
async function diskShows(ok) {
  const deadline = Date.now() + STEP;
  let text = '';
  while (Date.now() < deadline) {
    text = fs.readFileSync(file, 'utf8');
    if (ok(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${relative} on disk never changed as expected; it holds:\n${text}`);
}

async function shot(page, name, seen) {
  const screenshot = path.join(artifacts, `${name}.png`);
  await page.screenshot({ path: screenshot });
  report.steps.push({ name, screenshot, ...seen });
  log(`${name}: ${screenshot}`);
}

main().catch((e) => {
  process.stderr.write(`e2e: ${(e && e.stack) || e}\n`);
  process.exit(2);
});
