// What extensions get for `import ... from "@mariozechner/pi-agent-core"`: its types are all
// pi's examples use (they vanish at run time); the agent itself runs in pi-rs, so every
// runtime name fails with an error naming it.
export {};
