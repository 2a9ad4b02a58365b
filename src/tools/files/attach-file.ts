// attach_file: a file (UTF-8 text the model writes: a CSV, a JSON export, a patch…) added to
// the answer in the requester's own thread or channel. It is part of the answer, so it needs
// no approval; it is offered only where the surface posts the answer's files.
import { z } from "zod";
import type { Tool } from "../../contracts/types.js";
import { ToolOutput } from "../../agent/tools/tool-output.js";
import { declaredKind } from "../../files/file-kind.js";
import { formatBytes } from "../../files/file-names.js";

const Args = z
  .object({
    name: z.string().trim().min(1).max(200).describe('the file name with its extension, e.g. "report.csv"'),
    content: z.string().describe("the whole file, as UTF-8 text"),
    mime: z
      .string()
      .regex(/^[a-z]+\/[a-z0-9.+-]+$/i, "expects a media type like text/csv")
      .max(100)
      .optional()
      .describe("media type; by default from the name's extension"),
  })
  .strict();
type Args = z.infer<typeof Args>;

const BY_EXTENSION: Readonly<Record<string, string>> = {
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  json: "application/json",
  jsonl: "application/x-ndjson",
  md: "text/markdown",
  html: "text/html",
  xml: "application/xml",
  yaml: "application/yaml",
  yml: "application/yaml",
  svg: "image/svg+xml",
  js: "text/javascript",
  ts: "text/plain",
  py: "text/x-python",
  sql: "application/sql",
  diff: "text/x-diff",
  patch: "text/x-diff",
};

function mimeFor(name: string): string {
  const extension = name.toLowerCase().split(".").pop() ?? "";
  return BY_EXTENSION[extension] ?? "text/plain";
}

export function attachFileTool(): Tool<Args> {
  return {
    name: "attach_file",
    description:
      "Adds a text file (CSV, JSON, Markdown, code…) to your answer; it is posted with the reply in the person's thread. " +
      "Use it for content too long or too structured for a chat message, and do not paste the same content into the reply.",
    schema: Args,
    effect: "read",
    async execute(args, context) {
      const sink = context.answerFiles;
      if (!sink) throw new Error("this surface can't post files; put the content in the reply instead");
      const mime = args.mime ?? mimeFor(args.name);
      if (mime !== "image/svg+xml" && declaredKind(args.name, mime) !== "text")
        throw new Error(`the content is text, so the type must be a text type (${mime} is not one)`);
      const data = Buffer.from(args.content, "utf8");
      if (data.length > sink.maxBytes)
        throw new Error(`the file would be ${formatBytes(data.length)}, more than the ${formatBytes(sink.maxBytes)} a file may have`);
      const files = await sink.attach(context, [{ name: args.name, mime, data }]);
      const file = files[0]!;
      return new ToolOutput(
        `Attached "${file.name}" (${file.mime}, ${formatBytes(file.size)}) to the answer: it is posted with your reply.`,
        files,
      );
    },
  };
}
