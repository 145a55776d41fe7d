// The Benchmarks tab's table of answers: one row per (example, model), paged in the worker,
// filtered by outcome, context and a search. Raw answers come from files and models: text only.
import { $, el, errorMessage } from "../dom.js";

const PAGE = 25;

/** The option a parsed answer names, as the letter the prompt showed (A, B, C, ...). */
function parsedText(parsed) {
  if (parsed.kind === "choice") return String.fromCharCode(65 + parsed.choice);
  return "out of choice";
}

/** Builds the table. Returns {reset}: back to the first page, for new data or answers.
 * @param {import("../rpc.js").AnalysisCall} call */
export function createBbqExamples(call) {
  let offset = 0;
  const filter = { outcome: "", condition: "", search: "" };

  async function render() {
    let page;
    try {
      page = await call("bbqRows", { offset, limit: PAGE, ...filter });
    } catch (err) {
      $("bbq-range").textContent = `The answers could not be listed: ${errorMessage(err)}`;
      return;
    }
    $("bbq-rows").tBodies[0].replaceChildren(...page.rows.map((r) => el("tr", {},
      el("td", { text: r.id }),
      el("td", { text: r.category }),
      el("td", { text: r.condition }),
      el("td", { class: "model", text: r.model }),
      el("td", { class: "response", text: r.raw }),
      el("td", { text: parsedText(r.parsed) }),
      el("td", { text: r.read_as }),
      el("td", { class: `outcome ${r.outcome.replaceAll(" ", "-")}`, text: r.outcome }),
    )));
    const last = Math.min(page.offset + page.rows.length, page.total);
    $("bbq-range").textContent = page.total === 0
      ? "No answers match."
      : `Answers ${page.offset + 1}–${last} of ${page.total}`;
    $("bbq-prev").disabled = offset === 0;
    $("bbq-next").disabled = last >= page.total;
  }

  const again = () => {
    offset = 0;
    return render();
  };

  $("bbq-filter").addEventListener("submit", (event) => event.preventDefault());
  $("bbq-outcome").addEventListener("change", () => {
    filter.outcome = $("bbq-outcome").value;
    again();
  });
  $("bbq-condition").addEventListener("change", () => {
    filter.condition = $("bbq-condition").value;
    again();
  });
  let typing;
  $("bbq-search").addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      filter.search = $("bbq-search").value;
      again();
    }, 200);
  });
  $("bbq-prev").addEventListener("click", () => {
    offset = Math.max(0, offset - PAGE);
    render();
  });
  $("bbq-next").addEventListener("click", () => {
    offset += PAGE;
    render();
  });

  return { reset: again };
}
