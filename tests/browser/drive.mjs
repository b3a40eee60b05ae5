// Drives the console in headless Chromium for the browser tests (tests/test_browser_*.py).
//
//   node drive.mjs '<json>'   → prints one JSON object: what the pages showed
//
// The JSON names a scenario (playground, catalogs, misses, health, tokens) and its inputs;
// Python starts `toolret serve`, calls the API for the same requests and compares. Chromium
// comes from @sparticuz/chromium (the binary ships inside the npm package), driven by
// playwright-core; run as root, so without the sandbox, with a fresh profile each time.
import chromium from "@sparticuz/chromium";
import { chromium as playwright } from "playwright-core";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

async function launch(viewport) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "toolret-chromium-"));
  const context = await playwright.launchPersistentContext(profile, {
    executablePath: await chromium.executablePath(),
    headless: true,
    args: [...chromium.args, ...FLAGS],
    viewport,
  });
  return { context, profile };
}

const text = (locator) => locator.evaluateAll((els) => els.map((el) => el.textContent.trim()));

async function shot(page, plan, name, fullPage = true) {
  if (plan.shots) await page.screenshot({ path: path.join(plan.shots, `${name}.png`), fullPage });
}

async function ask(page, plan, message, index) {
  await page.goto(`${plan.base}/console/playground`);
  await page.selectOption("#catalog", plan.catalog);
  await page.locator("#message").pressSequentially(message);
  if (plan.capabilities) await page.fill("#capabilities", plan.capabilities.join("\n"));
  const direction = await page.$eval("#message", (el) => getComputedStyle(el).direction);
  await Promise.all([page.waitForURL(/message=/), page.press("#message", "Control+Enter")]);
  const rows = await page.locator("#ranked tbody tr").evaluateAll((trs) =>
    trs.map((tr) => ({
      name: tr.dataset.tool,
      rank: Number(tr.cells[0].textContent),
      score: tr.querySelector("td.num").textContent.trim(),
      signals: Object.fromEntries(
        [...tr.querySelectorAll("td[data-signal]")]
          .filter((td) => td.textContent.trim())
          .map((td) => [td.dataset.signal, td.textContent.trim()]),
      ),
      bound: tr.cells[tr.cells.length - 2].textContent.trim(),
    })),
  );
  await shot(page, plan, `playground-${plan.catalog}-${index}`);
  return {
    message: await page.inputValue("#message"),
    direction,
    mode: (await page.textContent("#mode")).trim(),
    core: await text(page.locator("#core li")),
    chosen: await text(page.locator("#chosen li")),
    tokens: (await page.textContent("#tokens")).trim(),
    margin: await page.getAttribute("#margin", "data-value"),
    cut: (await page.textContent("#cut")).trim(),
    gate: (await page.textContent("#gate")).trim(),
    ranked: rows,
    found: plan.capabilities ? await text(page.locator("#find-tools .found li strong")) : [],
  };
}

const scenarios = {
  async playground(page, plan) {
    const asked = [];
    for (const [i, message] of plan.messages.entries()) asked.push(await ask(page, plan, message, i));
    // the keyboard reaches the message box, with a visible focus ring
    await page.goto(`${plan.base}/console/playground`);
    let focused = null;
    for (let i = 0; i < 20 && focused !== "message"; i++) {
      await page.keyboard.press("Tab");
      focused = await page.evaluate(() => document.activeElement.id);
    }
    const outline = await page.$eval("#message", (el) => getComputedStyle(el).outlineStyle);
    return { asked, focused, outline };
  },
  async catalogs(page, plan) {
    await page.goto(`${plan.base}/console/playground`);
    await Promise.all([page.waitForURL(/catalogs/), page.click("nav >> text=Catalogs")]);
    const shown = {};
    for (const name of plan.catalogs) {
      await page.selectOption("#catalog", name);
      await Promise.all([page.waitForURL(new RegExp(`catalog=${name}`)), page.click("text=Show")]);
      shown[name] = {
        model: (await page.textContent("#model")).trim(),
        tools: Number(await page.textContent("#tool-count")),
        core: Number(await page.textContent("#core-count")),
        dense: (await page.textContent("#dense-state")).trim(),
        names: await text(page.locator("#tools tbody th")),
        findings: await page.locator("#lint tbody tr").count(),
      };
      await shot(page, plan, `catalogs-${name}`, false); // the first screen: index and lint
    }
    return { options: await text(page.locator("#catalog option")), shown };
  },
  async misses(page, plan) {
    await page.goto(`${plan.base}/console/playground?catalog=${plan.catalog}`);
    await Promise.all([page.waitForURL(/misses/), page.click("nav >> text=Misses")]);
    const rows = await page.locator("#by-tool tbody tr").evaluateAll((trs) =>
      trs.map((tr) => [...tr.cells].map((c) => c.textContent.trim())),
    );
    const languages = await page.locator("#by-language tbody tr").evaluateAll((trs) =>
      trs.map((tr) => [...tr.cells].map((c) => c.textContent.trim())),
    );
    await shot(page, plan, "misses");
    return { turns: (await page.textContent("#turns")).trim(), rows, languages, texts: await text(page.locator("#texts li")) };
  },
  async health(page, plan) {
    // first the Playground on a narrow window: it must fit without scrolling sideways
    await page.setViewportSize({ width: 390, height: 800 });
    const asked = `catalog=${plan.catalog}&message=${encodeURIComponent(plan.message)}`;
    await page.goto(`${plan.base}/console/playground?${asked}`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    await shot(page, plan, "narrow");
    await page.setViewportSize({ width: 1280, height: 800 });
    await Promise.all([page.waitForURL(/health/), page.click("nav >> text=Health")]);
    const deps = await page.locator("#deps dd").evaluateAll((dds) =>
      Object.fromEntries(dds.map((dd) => [dd.dataset.dependency, dd.className.replace("state-", "")])),
    );
    const outcomes = await page.locator("#outcomes tbody tr").evaluateAll((trs) =>
      Object.fromEntries(trs.map((tr) => [tr.dataset.outcome, Number(tr.cells[1].textContent)])),
    );
    await shot(page, plan, "health");
    const bars = await page.locator("#chart rect").count();
    return { deps, outcomes, bars, overflow };
  },
  async tokens(page, plan) {
    await page.goto(`${plan.base}/console/playground`);
    const login = page.url();
    await page.fill("#token", plan.token);
    await Promise.all([page.waitForURL(/playground/), page.press("#token", "Enter")]);
    const options = await text(page.locator("#catalog option"));
    const response = await page.goto(`${plan.base}/console/catalogs?catalog=${plan.other}`);
    return { login, options, status: response.status(), error: (await page.textContent("#error")).trim() };
  },
};

const plan = JSON.parse(process.argv[2]);
const { context, profile } = await launch(plan.viewport ?? { width: 1280, height: 800 });
try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(plan.timeout ?? 120000);
  const result = await scenarios[plan.scenario](page, plan);
  process.stdout.write(JSON.stringify(result));
} finally {
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
