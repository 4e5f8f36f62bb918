// What extensions get for `import ... from "@mariozechner/pi-ai/oauth"`: nothing yet. OAuth
// logins run in pi-rs; every name fails with an error naming it.
export {};
