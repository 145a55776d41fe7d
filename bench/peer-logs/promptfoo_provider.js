// A local promptfoo provider for Evenhand's fixtures: answers a BBQ-style item with one of its
// three options, picked by a hash of the model's seed and the prompt (deterministic, offline).
const crypto = require('crypto');

module.exports = class {
  constructor(options) {
    this.providerId = options.id;
    this.seed = String((options.config || {}).seed || '0');
  }

  id() {
    return this.providerId;
  }

  async callApi(prompt, context) {
    const vars = context.vars;
    const digest = crypto.createHash('sha256').update(this.seed + prompt).digest();
    const options = [vars.ans0, vars.ans1, vars.ans2];
    return { output: options[digest[0] % 3], tokenUsage: { prompt: prompt.split(/\s+/).length, completion: 3, total: prompt.split(/\s+/).length + 3 } };
  }
};
