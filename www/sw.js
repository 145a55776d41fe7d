// Evenhand's service worker: after the first visit the page opens offline.
//
// The app shell is cached at install, in a cache named after the build (the page registers
// sw.js?build=<hash> from version.json), so every published version has its own cache and the
// old one is deleted when the new worker takes over. Requests go to the network first and the
// cache answers only when the network fails: online, a freshly published page is what loads,
// and a new build registers a new worker, which waits until the page's "Reload to update".
// Only same-origin GET requests inside the scope are touched; provider calls, bundles from
// other origins and everything else pass straight through.

// The worker's global scope. jsconfig.json checks the page against the DOM library, which does
// not describe a service worker's scope, so the few service-worker members go through `sw`.
const sw = /** @type {any} */ (self);
const BUILD = new URL(self.location.href).searchParams.get("build") || "dev";
const CACHE = `evenhand-${BUILD}`;
// The Datasets view's verified files (dataset-store.js): the user's, kept across builds.
const DATASETS_CACHE = "evenhand-datasets-v1";
// The local models' checked weight files (models-worker.js): the user's too, kept across builds.
const MODELS_CACHE = "evenhand-models-v1";

// Every file the page loads. tests/app_shell.rs fails when a module in www/ is missing here.
const SHELL = [
  "./",
  "./index.html",
  "./styles.css",
  "./manifest.webmanifest",
  "./icon.svg",
  "./app.js",
  "./build-info.js",
  "./bundles.js",
  "./dataset-store.js",
  "./dom.js",
  "./engine.js",
  "./handover.js",
  "./keys.js",
  "./menu.js",
  "./models.js",
  "./models-pool.js",
  "./models-worker.js",
  "./offline.js",
  "./parquet.js",
  "./parquet-worker.js",
  "./permanova-pool.js",
  "./permanova-worker.js",
  "./read-file.js",
  "./router.js",
  "./rpc.js",
  "./run-store.js",
  "./run-worker.js",
  "./study-store.js",
  "./tabs.js",
  "./wasm-tools.js",
  "./worker.js",
  "./views/batch.js",
  "./views/bbq-dashboard.js",
  "./views/bbq-examples.js",
  "./views/benchmarks.js",
  "./views/datasets.js",
  "./views/crosslingual-dashboard.js",
  "./views/crosslingual-labels.js",
  "./views/crosslingual-local.js",
  "./views/model-load.js",
  "./views/crosslingual-nli.js",
  "./views/nli-panel.js",
  "./views/crosslingual-runs.js",
  "./views/crosslingual.js",
  "./views/design.js",
  "./views/divergence-results.js",
  "./views/divergence.js",
  "./views/harness-logs.js",
  "./views/mapping-form.js",
  "./views/requirements-results.js",
  "./views/requirements.js",
  "./views/results.js",
  "./views/run-form.js",
  "./views/run-handback.js",
  "./views/run-live.js",
  "./views/run.js",
  "./views/share.js",
  "./views/study-items.js",
  "./views/study-calls.js",
  "./views/figure-units.js",
  "./views/study-report.js",
  "./views/study-run.js",
  "./views/study-setup.js",
  "./views/study-tools.js",
  "./views/study.js",
  "./views/upload.js",
  "./pkg/home.js",
  "./pkg/home_bg.wasm",
  "./pkg/evenhand.js",
  "./pkg/evenhand_bg.wasm",
  // Not ./pkg-parquet/: the Parquet module (about 1 MB gzipped) is fetched the first time a
  // Parquet file is picked or asked for, and kept then by the fetch handler below, so a
  // visitor who never uses Parquet never downloads it.
  // Nor ./pkg-models/ or ./pkg-models-relaxed/ (the local models, several MB, in two builds of
  // which a browser takes one): fetched when a local model is first used.
];
// Written by ./build.sh; a bare checkout may lack them, which must not stop the install. The
// tools' built-in datasets (src/builtin.rs's FILES; tests/builtin_data.rs keeps the lists equal)
// are cached here too, although the page fetches them only when a tool is first used, so that
// a visit offline can use every tool.
const OPTIONAL = [
  "./version.json",
  "./data/catalogue.json",
  "./data/bbq/templates.csv",
  "./data/bbq/vocabulary.csv",
  "./data/bbq/proper_names.csv",
  "./data/bbq/unknown.csv",
  "./data/crosslingual/questions.json",
  "./data/divergence/probes/pl-western.json",
  "./data/divergence/probes/de-western.json",
  "./data/divergence/references/pl_cities.tsv",
  "./data/divergence/references/de_cities.tsv",
  "./data/divergence/references/us_cities.tsv",
  "./data/divergence/references/us_first_names.tsv",
  "./data/requirements/de_de.json",
  "./data/requirements/en_us.json",
  "./data/requirements/es_es.json",
  "./data/requirements/fr_fr.json",
  "./data/requirements/hi_in.json",
  "./data/requirements/zh_cn.json",
];

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // "reload": past the HTTP cache, so a new build never stores an old file.
      await cache.addAll(SHELL.map((url) => new Request(url, { cache: "reload" })));
      await Promise.all(OPTIONAL.map((url) => cache.add(new Request(url, { cache: "reload" })).catch(() => {})));
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const names = await caches.keys();
      await Promise.all(names.filter((n) => n.startsWith("evenhand-") && n !== CACHE && n !== DATASETS_CACHE && n !== MODELS_CACHE).map((n) => caches.delete(n)));
      await sw.clients.claim();
    })(),
  );
});

// The page's "Reload to update" button.
self.addEventListener("message", (event) => {
  if (event.data && event.data.type === "skip-waiting") sw.skipWaiting();
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  if (!request.url.startsWith(sw.registration.scope)) return;
  event.respondWith(networkFirst(event));
});

async function networkFirst(event) {
  const request = event.request;
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    // Stored beside the answer, not before it: the wasm streams into its compiler meanwhile.
    if (response.ok && response.type === "basic") event.waitUntil(cache.put(request, response.clone()));
    return response;
  } catch (err) {
    // A navigation may carry ?bundle=… or a new path under the scope: the shell answers it.
    const navigation = request.mode === "navigate";
    const hit = (await cache.match(request, { ignoreSearch: navigation })) ??
      (navigation ? await cache.match("./index.html") : undefined);
    if (hit) return hit;
    throw err;
  }
}
