// An MCP tool result as the observation the model reads: text as text, structured content as
// compact JSON, media as a one-line note (the model can't see the bytes, and they would flood
// its context), resource links as their URI and name. `isError` makes it a failed call.
// Images and embedded resources can also go out with the answer as files (toolResultFiles);
// a resource link is never fetched.
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { OutgoingFile } from "../../contracts/types.js";

type ToolResultText = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly text: string };

/** Bytes in a base64 string, without decoding it. */
function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type}: ${block.mimeType}, ${formatBytes(base64Bytes(block.data))}]`;
    case "resource_link":
      return `[resource link: ${block.uri}${block.name ? ` (${block.name})` : ""}]`;
    case "resource": {
      const resource = block.resource;
      if ("text" in resource && typeof resource.text === "string") return resource.text;
      const size = "blob" in resource && typeof resource.blob === "string" ? `, ${formatBytes(base64Bytes(resource.blob))}` : "";
      return `[resource: ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ""}${size}]`;
    }
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

/**
 * Text blocks are the observation; structured content stands in as compact JSON only when the
 * server sent no text (the protocol has servers repeat it as text for older clients).
 */
export function toolResultText(result: CallToolResult): ToolResultText {
  const blocks = result.content ?? [];
  const hasText = blocks.some((block) => block.type === "text");
  const structured = !hasText && result.structuredContent !== undefined ? [JSON.stringify(result.structuredContent)] : [];
  const parts = [...structured, ...blocks.map(blockText)];
  const text = parts.length > 0 ? parts.join("\n") : "(no output)";
  return result.isError === true ? { ok: false, text } : { ok: true, text };
}

const IMAGE_EXTENSIONS: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

/** The last segment of a resource's URI, as a file name (the caller makes it safe). */
function nameFromUri(uri: string, fallback: string): string {
  try {
    const segment = new URL(uri).pathname.split("/").filter(Boolean).pop();
    return segment ? decodeURIComponent(segment) : fallback;
  } catch {
    return fallback;
  }
}

/** The result's images and embedded resources as files for the answer, in order; links and audio stay notes. */
export function toolResultFiles(result: CallToolResult): OutgoingFile[] {
  const files: OutgoingFile[] = [];
  for (const block of result.content ?? []) {
    const number = files.length + 1;
    if (block.type === "image") {
      const extension = IMAGE_EXTENSIONS[block.mimeType] ?? "bin";
      files.push({ name: `image-${number}.${extension}`, mime: block.mimeType, data: Buffer.from(block.data, "base64") });
    } else if (block.type === "resource") {
      const resource = block.resource;
      const name = nameFromUri(resource.uri, `resource-${number}`);
      if ("blob" in resource && typeof resource.blob === "string")
        files.push({ name, mime: resource.mimeType ?? "application/octet-stream", data: Buffer.from(resource.blob, "base64") });
      else if ("text" in resource && typeof resource.text === "string")
        files.push({ name, mime: resource.mimeType ?? "text/plain", data: Buffer.from(resource.text, "utf8") });
    }
  }
  return files;
}
