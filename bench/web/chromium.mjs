// What the page benches share: headless Chromium launched alike, the resident memory of its
// renderer processes (the page, its workers and their wasm) sampled from /proc, a static server
// for a folder, the load average, and medians.
import { chromium } from "playwright";
import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";

/** Headless Chromium (the system's) and its browser process id, which Playwright starts as a
 *  child of this process: the newest chromium child is it. */
export async function launch() {
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"] });
  const pid = Number(readdirSync("/proc").filter((n) => /^\d+$/.test(n)).map(Number).filter((p) => {
    try {
      return Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1]) === process.pid &&
        readFileSync(`/proc/${p}/cmdline`, "utf8").includes("chrom");
    } catch {
      return false;
    }
  }).sort((a, b) => b - a)[0]);
  return { browser, pid };
}

/** Resident memory (MB) of every Chromium renderer process below `browserPid`. */
export function rendererRss(browserPid) {
  const parent = new Map();
  const rss = new Map();
  const renderer = new Set();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, "utf8");
      parent.set(Number(name), Number(/PPid:\s+(\d+)/.exec(status)?.[1] ?? 0));
      rss.set(Number(name), Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0));
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes("--type=renderer")) renderer.add(Number(name));
    } catch {
      // the process ended while it was read
    }
  }
  const under = (pid) => {
    for (let p = pid, hops = 0; p > 1 && hops < 10; p = parent.get(p) ?? 0, hops++) if (p === browserPid) return true;
    return false;
  };
  return [...renderer].filter(under).reduce((n, pid) => n + (rss.get(pid) ?? 0), 0) / 1024;
}

/** Samples the renderers' memory every 100 ms: `peak()` the largest since the last `reset()`. */
export function sampler(browserPid) {
  let peak = 0;
  const timer = setInterval(() => { peak = Math.max(peak, rendererRss(browserPid)); }, 100);
  return {
    peak: () => Math.max(peak, rendererRss(browserPid)),
    reset: () => { peak = rendererRss(browserPid); },
    stop: () => clearInterval(timer),
  };
}

/** `python3 -m http.server` on 127.0.0.1:`port` for `dir`, ready when it resolves. */
export async function serve(dir, port) {
  const server = spawn("python3", ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", dir], { stdio: "ignore" });
  await new Promise((r) => setTimeout(r, 800));
  return server;
}

/** The 1, 5 and 15 minute load averages, as /proc/loadavg has them. */
export const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

/** The median (the upper one of an even count). @param {number[]} xs */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
