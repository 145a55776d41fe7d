// Opens a bench page in headless Chromium with the V8 sampling profiler on and prints where
// the time went: the functions with the most self time (wasm functions by name when the
// module keeps its name section; build one with `wasm-bindgen --keep-debug` and no wasm-opt).
// Only the page's own thread is sampled: for bench/web/langbite.html pass ?inline=1, which makes
// the page worker's calls on that thread, and ?www=DIR for a folder whose pkg/ holds that build.
// Usage: node bench/web/profile.mjs URL [TOP]
import { chromium } from "playwright";

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await cdp.send("Profiler.start");
  await page.goto(process.argv[2]);
  await page.waitForSelector("#out[data-done='1']", { timeout: 300_000 });
  const { profile } = await cdp.send("Profiler.stop");
  console.log(await page.textContent("#out"));
  // Self time per function: samples are node ids, timeDeltas the time before each sample.
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  profile.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const name = f.functionName || `(anonymous ${f.url.split("/").pop()}:${f.lineNumber})`;
    self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 40));
  for (const [name, ms] of top) {
    console.log(`${ms.toFixed(1).padStart(9)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${name.slice(0, 150)}`);
  }
  // CALLERS=name1,name2: who called each of these functions, by self time spent in it.
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const fname = (n) => n.callFrame.functionName || "(anonymous)";
  for (const want of (process.env.CALLERS ?? "").split(",").filter(Boolean)) {
    const by = new Map();
    profile.samples.forEach((id, i) => {
      const n = byId.get(id);
      if (!fname(n).includes(want)) return;
      // The nearest caller that is not a step of the same function.
      let p = byId.get(parent.get(id));
      while (p && fname(p).includes(want)) p = byId.get(parent.get(p.id));
      const name = p ? fname(p) : "(root)";
      by.set(name, (by.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
    });
    console.log(`callers of ${want}:`);
    for (const [name, ms] of [...by.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
      console.log(`${ms.toFixed(1).padStart(9)} ms  ${name.slice(0, 150)}`);
    }
  }
} finally {
  await browser.close();
}
