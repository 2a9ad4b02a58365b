// `node --import ./bench/conformance/node20.mjs …`: registers node20-hooks.mjs.
import { register } from "node:module";

register("./node20-hooks.mjs", import.meta.url);
