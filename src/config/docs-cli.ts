// `npm run docs:config`: writes docs/configuration.md from the declarations under src/config/.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { CONFIGURATION_DOC, configurationDoc } from "./docs.js";

mkdirSync(dirname(CONFIGURATION_DOC), { recursive: true });
writeFileSync(CONFIGURATION_DOC, configurationDoc());
console.log(`wrote ${CONFIGURATION_DOC}`);
