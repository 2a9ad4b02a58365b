// An MCP tool result as the observation the model reads: text as text, structured content as
// compact JSON, media as a one-line note (the model can't see the bytes, and they would flood
// its context), resource links as their URI and name. `isError` makes it a failed call.
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";

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
