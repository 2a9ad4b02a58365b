// Module hooks that let the conformance suite (built for Node 22) run on this project's Node 20:
// its CLI imports fs.globSync, which Node 20 lacks and which only its `tier-check` command uses.
// The import is replaced with a function that says so; nothing else of the suite is changed.
const SUITE = /@modelcontextprotocol\/conformance\/dist\/index\.js$/;

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (!SUITE.test(url)) return loaded;
  const source = String(loaded.source).replace(
    /import\{([^}]*?)globSync as (\w+),([^}]*)\}from"fs";/,
    (_all, before, name, after) =>
      `import{${before}${after}}from"fs";const ${name}=()=>{throw new Error("fs.globSync needs Node 22 (only tier-check uses it)")};`,
  );
  return { ...loaded, source };
}
