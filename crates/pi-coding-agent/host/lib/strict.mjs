// Objects that fail loudly: a module namespace or API object whose missing members throw an
// error naming them, instead of handing the extension `undefined` (no stubs that pretend).

/** Property names probed by module interop, `await`, JSON and inspection: never errors. */
const PROBED = new Set([
	"default", "__esModule", "then", "toJSON", "constructor", "inspect", "nodeType", "$$typeof",
	"asymmetricMatch", "prototype", "toString", "valueOf", "length", "name",
]);

/**
 * A module namespace for `module`: `import { X }` of a name it lacks throws
 * `pi-rs extension host: <module> has no export "X"` where the extension uses X.
 * @param {string} module @param {Record<string, unknown>} exports
 */
export function strictModule(module, exports) {
	const target = Object.freeze({ ...exports });
	return new Proxy(target, {
		get(t, key) {
			if (typeof key !== "string" || key in t || PROBED.has(key)) return t[key];
			throw new Error(`pi-rs extension host: ${module} has no export "${key}"`);
		},
		// jiti's interop reads a named import only when `name in module`: say yes, so that
		// `get` gets the chance to throw.
		has(t, key) {
			return typeof key === "string" && !PROBED.has(key) ? true : key in t;
		},
	});
}

/**
 * `object` whose missing members throw `pi-rs extension host: <what>.<name> is not supported`
 * (with `why` appended when given).
 * @template {object} T @param {T} object @param {string} what @param {string} [why] @returns {T}
 */
export function strictObject(object, what, why) {
	return new Proxy(object, {
		get(t, key, receiver) {
			if (typeof key !== "string" || key in t || PROBED.has(key)) return Reflect.get(t, key, receiver);
			throw new Error(`pi-rs extension host: ${what}.${key} is not supported${why ? ` (${why})` : ""}`);
		},
	});
}

/** An error for an unsupported feature. @param {string} feature @param {string} [why] */
export function unsupported(feature, why) {
	return new Error(`pi-rs extension host: ${feature} is not supported${why ? ` (${why})` : ""}`);
}
