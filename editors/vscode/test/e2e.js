// Drives VS Code (code-server, in Chromium) with the extension installed, as
// a user does: opens a site file of a tree, waits for its diagnostics, hovers
// a directive, applies a quick fix, formats the document and saves it.
// vscode_test.go starts code-server and Chromium and checks the saved file;
// this prints what it saw as JSON on its last line.
//
// Environment: NGINXTUNE_CDP (Chromium's DevTools websocket), NGINXTUNE_URL
// (the workbench with the folder open).
'use strict';

const { chromium } = require('playwright-core');

const step = 60000;

async function main() {
  const browser = await chromium.connectOverCDP(process.env.NGINXTUNE_CDP);
  const saw = {};
  let page;
  try {
    const context = browser.contexts()[0] || (await browser.newContext());
    page = await context.newPage();
    page.setDefaultTimeout(step);
    await page.setViewportSize({ width: 1400, height: 1000 });
    await page.goto(process.env.NGINXTUNE_URL);
    await page.waitForSelector('.monaco-workbench .explorer-folders-view .monaco-list-row');

    // open nginx/sites/app.conf from the explorer
    for (const name of ['nginx', 'sites', 'app.conf']) {
      await page.getByRole('treeitem', { name, exact: true }).click();
    }
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await editor.locator('.view-line').first().waitFor();
    saw.language = (await page.locator('#status\\.editor\\.mode').innerText()).trim();

    // the diagnostics of the whole tree: the error squiggle, then the
    // Problems panel's rows
    await editor.locator('.squiggly-error').first().waitFor();
    await page.keyboard.press('Control+Shift+M');
    const rows = page.locator('.markers-panel .monaco-list-row');
    await rows.filter({ hasText: 'sendfil' }).first().waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.markers-panel .monaco-list-row').length >= 4);
    saw.problems = await rows.allInnerTexts();

    // highlighting: the directive and a variable are tokens of their own,
    // coloured apart from plain text (mtk1)
    const token = (text) => editor.locator('.view-line span span', { hasText: new RegExp(`^${text.replace(/\$/g, '\\$')}$`) }).first();
    saw.tokens = {};
    for (const t of ['proxy_pass', '$connection_upgrade', 'location', '404']) {
      saw.tokens[t] = await token(t).getAttribute('class');
    }

    // hover on a directive
    await token('proxy_pass').hover();
    const hover = page.locator('.monaco-hover', { hasText: 'ngx_http_proxy_module' }).first();
    await hover.waitFor();
    saw.hover = await hover.innerText();
    await page.mouse.move(0, 0);
    await page.keyboard.press('Escape');

    // the quick fix on tcp_nodelay's line
    await token('tcp_nodelay').click();
    await page.keyboard.press('Control+.');
    const actions = page.locator('.action-widget .monaco-list-row');
    await actions.first().waitFor();
    saw.actions = await actions.allInnerTexts();
    await actions.filter({ hasText: 'tcp_nodelay' }).first().waitFor();
    await page.keyboard.press('Enter');
    await editor.locator('.view-line', { hasText: /tcp_nodelay\s+off/ }).waitFor({ state: 'detached' });

    // format, then save: vscode_test.go reads the file
    await editor.click();
    await page.keyboard.press('F1');
    await page.keyboard.type('Format Document');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: /^Format Document/ }).first().waitFor();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => ![...document.querySelectorAll('.editor-instance .view-line')].some((l) => /^\u00a0{1,3}\S/.test(l.textContent)));
    await page.keyboard.press('Control+S');
    await page.locator('.tab.active.dirty').waitFor({ state: 'detached' });

    // nginx.conf, linted with the workspace's facts file: its open-file
    // limit is in a finding
    await page.getByRole('treeitem', { name: 'nginx.conf', exact: true }).click();
    await rows.filter({ hasText: 'soft limit of 300' }).first().waitFor();
    saw.factsProblem = (await rows.filter({ hasText: 'soft limit of 300' }).first().innerText()).trim();
    saw.done = true;
  } finally {
    // NGINXTUNE_SHOT: a screenshot of where it stopped, to look at
    if (process.env.NGINXTUNE_SHOT && page) {
      await page.screenshot({ path: process.env.NGINXTUNE_SHOT }).catch(() => {});
    }
    console.log(JSON.stringify(saw));
    await browser.close().catch(() => {});
  }
}

main().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
