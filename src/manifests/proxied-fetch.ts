// undici's fetch and proxy agent, for a proxied download (download.ts imports this module only
// then). Named here by a static import: the CLI bundle's own part for a CommonJS package, imported
// dynamically, would give only its default export.
export { EnvHttpProxyAgent, fetch } from 'undici';
