// Run records and what their tokens cost (src/ops/records, src/cost).
import { ModelPricesVariable } from "../cost/prices.js";
import { area } from "./area.js";
import { oneOf, wholeNumber } from "./values.js";
import { variable } from "./variable.js";

export const recordsArea = area({
  title: "Run records and prices",
  about:
    "Every run is kept as a record for the explorer and `npm run replay` (see [Runs, usage and cost](operations.md#runs-usage-and-cost)).",
  variables: {
    content: variable("RUN_RECORD_CONTENT", oneOf(["full", "metadata"]), {
      default: "full",
      meaning: "what a run record keeps: `full` (texts masked as in the logs) or `metadata` (no message or tool text)",
    }),
    maxBytes: variable("RUN_RECORD_MAX_BYTES", wholeNumber(8_192, 16_777_216), {
      default: 65_536,
      meaning:
        "at most this much per record; the longest tool results are cut first, with their full length noted (a cut record is not replayable)",
    }),
    retentionDays: variable("RUN_RETENTION_DAYS", wholeNumber(1, 3_650), {
      default: 30,
      meaning: "records older than this are deleted (the daily usage counters stay 400 days)",
    }),
    retentionMax: variable("RUN_RETENTION_MAX", wholeNumber(100, 10_000_000), {
      default: 100_000,
      meaning: "at most this many records; the oldest go first",
    }),
    /** Dollars per million tokens, over the default table (src/cost/price-table.ts). */
    prices: variable(
      "MODEL_PRICES",
      { schema: ModelPricesVariable, range: "JSON" },
      {
        default: "{}",
        shownDefault: "built in",
        meaning:
          '$ per million tokens, over `src/cost/price-table.ts`: `{"llama3": {"input": 0.2, "cached": 0.1, "output": 0.4}}` (`cached` defaults to `input`); no price: "cost unknown"',
      },
    ),
  },
  shape: ({ prices, ...records }) => ({ records, prices }),
});
