// What extensions get for `import ... from "@mariozechner/pi-ai"`: TypeBox's `Type` and
// pi-ai's `StringEnum`, and model calls (`stream`, `complete`, ...) and the model catalogue
// (`getModel`, ...) served by pi-rs. Any other name fails with an error naming it.

import { Type } from "typebox";

export { Type };
export {
	AssistantMessageEventStream,
	complete,
	completeSimple,
	createAssistantMessageEventStream,
	getModel,
	getModels,
	getProviders,
	stream,
	streamSimple,
} from "../lib/model-client.mjs";

/** A string enum schema (`{type: "string", enum}`), as pi-ai builds it for tools. @param {readonly string[]} values @param {{description?: string, default?: string}} [options] */
export function StringEnum(values, options) {
	const schema = { type: "string", enum: [...values] };
	if (options?.description) schema.description = options.description;
	if (options?.default) schema.default = options.default;
	return Type.Unsafe(schema);
}

/** pi-ai's `calculateCost`: fills `usage.cost` from the model's per-million prices and returns it. @param {any} model @param {any} usage */
export function calculateCost(model, usage) {
	const price = model?.cost ?? {};
	const cost = usage.cost ?? (usage.cost = {});
	cost.input = ((price.input ?? 0) / 1_000_000) * (usage.input ?? 0);
	cost.output = ((price.output ?? 0) / 1_000_000) * (usage.output ?? 0);
	cost.cacheRead = ((price.cacheRead ?? 0) / 1_000_000) * (usage.cacheRead ?? 0);
	cost.cacheWrite = ((price.cacheWrite ?? 0) / 1_000_000) * (usage.cacheWrite ?? 0);
	cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
	return cost;
}

/** Whether two models are the same provider/id. @param {any} a @param {any} b */
export function modelsAreEqual(a, b) {
	return Boolean(a && b && a.provider === b.provider && a.id === b.id);
}
