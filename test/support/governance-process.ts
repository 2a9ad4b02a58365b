// Run as its own Node process by the governance tests: opens the store at argv[2], applies the
// settings in argv[3] (JSON), and either spends model tokens for a user or asks to admit one.
// Prints the result as JSON.
import { createAuditLog } from "../../src/governance/audit-log.js";
import { createRunPolicy } from "../../src/governance/run-policy.js";
import { fixedSettings } from "../../src/governance/settings-source.js";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import { settingsOf, slackOrigin } from "./governance-kit.js";

const [url, settingsJson, action, user, amount] = process.argv.slice(2);
const store = await openStore(url!, silentLogger);
const policy = createRunPolicy({ settings: fixedSettings(settingsOf(JSON.parse(settingsJson!))), store, audit: createAuditLog(store), logger: silentLogger });
const origin = slackOrigin(user!);
const result = action === "spend" ? { stop: (await policy.recordUsage(origin, Number(amount))) ?? null } : await policy.admit(origin);
process.stdout.write(JSON.stringify(result));
await store.close();
