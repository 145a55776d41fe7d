// The report's link to a method's expert tool: the tool opens with this study's own records of
// that method (study::handoff), not with whatever it last held. Each tool takes them through its
// own loader and is told through handover.js, as after a run in the Run tab.
import { bbqDataChanged, crosslingualDataChanged, divergenceDataChanged, requirementsDataChanged } from "../handover.js";
import { plural } from "../dom.js";

/** Each method's expert tool (its tab id). */
export const TOOL = { requirements: "requirements", bbq: "bench", crosslingual: "crosslingual", divergence: "divergence" };

/**
 * Loads the open study's records of `method` into its expert tool and shows the tool.
 * @param {import("../rpc.js").AnalysisCall} call @param {string} method @param {string} title the study's title
 */
export async function openInTool(call, method, title) {
  const jsonl = await call("studyToolRecords", method);
  const bytes = new TextEncoder().encode(jsonl);
  const name = `study-${method}.jsonl`;
  const from = `the study “${title || "untitled"}”`;
  if (method === "bbq") {
    // The tool's data is the study's examples with their answers (a record table with choices).
    await call("bbqClear");
    const got = await call("bbqAddData", name, bytes);
    bbqDataChanged({ message: `Opened from ${from}: ${plural(got.examples ?? 0, "example")} with the study's answers.` });
  } else if (method === "crosslingual") {
    const got = await call("crosslingualLoadRecords", name, bytes);
    crosslingualDataChanged(`Opened from ${from}: ${plural(got.records ?? 0, "record")}.`);
  } else if (method === "requirements") {
    // The study's scenario first: its records are judged by the study's requirements, not by
    // whatever scenario the tool held.
    const scenario = await call("studyToolScenario");
    const got = await call("requirementsLoadRecords", name, bytes);
    requirementsDataChanged("records", got, `Opened from ${from}: ${plural(got.records ?? 0, "record")}.`, scenario ?? null);
  } else if (method === "divergence") {
    const got = await call("divergenceLoadRecords", name, bytes);
    divergenceDataChanged({ message: `Opened from ${from}.`, loaded: got });
  }
}
