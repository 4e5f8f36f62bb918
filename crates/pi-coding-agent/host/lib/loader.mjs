// The `load` request: finds each extension's entry (a `.ts`/`.js` file, or a folder with
// `package.json` `pi.extensions` or `index.ts`/`index.js`), imports it with jiti as pi does
// (TypeScript without a build step, the extension's own node_modules), with pi's packages
// served by the host's modules (virtual modules win over any copy in node_modules), runs
// its factory with a fresh ExtensionAPI, and answers with the `Loaded` records.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as piTui from "@mariozechner/pi-tui";
import { createJiti } from "jiti";
import * as typebox from "typebox";
import * as typeboxCompile from "typebox/compile";
import * as typeboxValue from "typebox/value";
import { createExtensionAPI } from "./extension-api.mjs";
import { host } from "./host.mjs";
import { installKeybindings } from "./keybindings.mjs";
import { Extension, failedLoaded } from "./registry.mjs";
import { strictModule } from "./strict.mjs";

const STALE =
	"This extension ctx is stale after session replacement or reload. Do not use a captured pi or command ctx after ctx.newSession(), ctx.fork(), ctx.switchSession(), or ctx.reload().";

const HOST_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** The modules extensions import from pi's packages, as the host serves them. */
async function virtualModules() {
	const shim = (name) => import(path.join(HOST_DIR, "shims", `${name}.mjs`));
	const [codingAgent, ai, aiOauth, agentCore] = await Promise.all([
		shim("pi-coding-agent"),
		shim("pi-ai"),
		shim("pi-ai-oauth"),
		shim("pi-agent-core"),
	]);
	return {
		"@mariozechner/pi-coding-agent": strictModule("@mariozechner/pi-coding-agent", { ...codingAgent, VERSION: host.run.version }),
		"@mariozechner/pi-ai": strictModule("@mariozechner/pi-ai", { ...ai }),
		"@mariozechner/pi-ai/oauth": strictModule("@mariozechner/pi-ai/oauth", { ...aiOauth }),
		"@mariozechner/pi-agent-core": strictModule("@mariozechner/pi-agent-core", { ...agentCore }),
		"@mariozechner/pi-tui": piTui,
		typebox,
		"typebox/compile": typeboxCompile,
		"typebox/value": typeboxValue,
		// pi maps the old package name to typebox 1.x as well.
		"@sinclair/typebox": typebox,
		"@sinclair/typebox/compile": typeboxCompile,
		"@sinclair/typebox/value": typeboxValue,
	};
}

/** `~` and relative paths as pi resolves them. @param {string} p @param {string} cwd */
function resolvePath(p, cwd) {
	const normalized = p.replace(/[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g, " ");
	let expanded = normalized;
	if (normalized.startsWith("~/")) expanded = path.join(os.homedir(), normalized.slice(2));
	else if (normalized.startsWith("~")) expanded = path.join(os.homedir(), normalized.slice(1));
	return path.isAbsolute(expanded) ? expanded : path.resolve(cwd, expanded);
}

/** A folder's entry files (pi's rules), or null. @param {string} dir */
function folderEntries(dir) {
	const manifest = path.join(dir, "package.json");
	if (fs.existsSync(manifest)) {
		try {
			const pkg = JSON.parse(fs.readFileSync(manifest, "utf8"));
			const declared = pkg?.pi?.extensions;
			if (Array.isArray(declared) && declared.length) {
				const entries = declared.map((e) => path.resolve(dir, e)).filter((e) => fs.existsSync(e));
				if (entries.length) return entries;
			}
		} catch {
			// an unreadable manifest is no manifest, as in pi
		}
	}
	for (const index of ["index.ts", "index.js"]) if (fs.existsSync(path.join(dir, index))) return [path.join(dir, index)];
	return null;
}

/** The file to import for `resolved`. @param {string} resolved */
function entryFile(resolved) {
	if (!fs.existsSync(resolved) || !fs.statSync(resolved).isDirectory()) return resolved;
	const entries = folderEntries(resolved);
	if (!entries) throw new Error(`no extension entry in ${resolved} (no package.json "pi.extensions", index.ts or index.js)`);
	if (entries.length > 1)
		throw new Error(`${resolved} declares ${entries.length} extensions in package.json "pi.extensions": load each entry as its own extension`);
	return entries[0];
}

/**
 * Loads the extensions of a `load` request. @param {any} params
 * @returns {Promise<{extensions: object[]}>}
 */
export async function loadExtensions(params) {
	const run = host.run;
	run.cwd = params.cwd ?? process.cwd();
	run.agentDir = params.agentDir ?? "";
	run.mode = params.mode ?? "print";
	run.hasUI = Boolean(params.hasUI);
	run.version = params.version ?? "0.73.1";
	run.piExecutable = params.piExecutable ?? null;
	run.builtinTools = Array.isArray(params.builtinTools) ? params.builtinTools : [];
	host.session.cwd = run.cwd;
	installKeybindings(run.agentDir);
	installPiLauncher(run.piExecutable);

	const jiti = createJiti(import.meta.url, { moduleCache: false, virtualModules: await virtualModules() });
	// A new `load` replaces the extensions (pi's reload): the old ones' API goes stale.
	for (const old of host.extensions) if (old) old.staleMessage = STALE;
	host.extensions = [];
	const loaded = [];
	for (const [index, spec] of (params.extensions ?? []).entries()) {
		const extPath = spec.path;
		try {
			const file = entryFile(resolvePath(extPath, run.cwd));
			const ext = new Extension(index, extPath, file);
			const record = await runFactory(jiti, ext, extPath);
			host.extensions[index] = record.error ? undefined : ext;
			loaded.push(record);
		} catch (err) {
			host.extensions[index] = undefined;
			loaded.push(failedLoaded(extPath, `Failed to load extension: ${err instanceof Error ? err.message : String(err)}`));
		}
	}
	for (const ext of host.extensions) if (ext) ext.loaded = true;
	return { extensions: loaded };
}

/** @param {any} jiti @param {Extension} ext @param {string} extPath */
async function runFactory(jiti, ext, extPath) {
	const module = await jiti.import(ext.resolvedPath, { default: true });
	if (typeof module !== "function") return failedLoaded(extPath, `Extension does not export a valid factory function: ${extPath}`);
	await module(createExtensionAPI(ext));
	return ext.toLoaded();
}

/**
 * Extensions that start pi themselves (subagent) run `process.execPath process.argv[1] ...`:
 * point argv[1] at the launcher, which runs pi-rs with the rest of the arguments.
 * @param {string | null} piExecutable
 */
function installPiLauncher(piExecutable) {
	if (!piExecutable) return;
	process.env.PI_RS_EXECUTABLE = piExecutable;
	process.argv[1] = path.join(HOST_DIR, "bin", "pi.mjs");
}
