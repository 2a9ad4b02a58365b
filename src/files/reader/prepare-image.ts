// An attached image made ready for a vision model with sharp (libvips), inside the file reader's
// process: the header is read first and an image of more than 50 megapixels is refused before
// any pixel is decoded (a decompression bomb declares a huge size in a small file); only the
// first frame of an animation is decoded; the rest is turned upright, resized so its long side
// is at most 2,048 px, and re-encoded until it is at most 5 MB.
import sharp, { type Metadata } from "sharp";
import type { ImageMime } from "../../contracts/types.js";
import { formatBytes } from "../file-names.js";

export const MAX_IMAGE_PIXELS = 50_000_000;
export const MAX_IMAGE_SIDE = 2_048;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** JPEG qualities tried, then the long side shrunk by this much each time, until the data fits. */
const JPEG_QUALITIES = [82, 65, 50] as const;
const SHRINK = 0.7;
const MAX_SHRINKS = 4;

export type PreparedImage =
  | {
      readonly kind: "ok";
      readonly mime: ImageMime;
      readonly data: Buffer;
      readonly width: number;
      readonly height: number;
      readonly originalWidth: number;
      readonly originalHeight: number;
    }
  | { readonly kind: "refused"; readonly detail: string };

const FORMATS: Readonly<Record<string, ImageMime>> = { png: "image/png", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp" };

/** Never rejects: an image that can't be used is `refused` with the reason. */
export async function prepareImage(data: Buffer): Promise<PreparedImage> {
  let meta: Metadata;
  try {
    meta = await sharp(data, { limitInputPixels: false }).metadata();
  } catch (error) {
    return { kind: "refused", detail: `the image could not be read (${shortError(error)})` };
  }
  const format = meta.format ? FORMATS[meta.format] : undefined;
  if (!format) return { kind: "refused", detail: `${meta.format ?? "this"} images are not supported (PNG, JPEG, GIF and WebP are)` };
  const { width, height } = meta;
  if (!width || !height) return { kind: "refused", detail: "the image declares no size" };
  if (width * height > MAX_IMAGE_PIXELS)
    return {
      kind: "refused",
      detail: `the image is ${width}×${height} (${((width * height) / 1e6).toFixed(0)} megapixels), more than the 50 megapixels the bot decodes`,
    };
  // EXIF orientation 5–8 swaps the sides once the image is turned upright.
  const swapped = (meta.orientation ?? 1) >= 5;
  const upright = swapped ? { width: height, height: width } : { width, height };
  try {
    return await encodeWithin(data, format, upright);
  } catch (error) {
    return { kind: "refused", detail: `the image could not be decoded (${shortError(error)})` };
  }
}

async function encodeWithin(
  data: Buffer,
  format: ImageMime,
  original: { readonly width: number; readonly height: number },
): Promise<PreparedImage> {
  let side = Math.min(MAX_IMAGE_SIDE, Math.max(original.width, original.height));
  for (let shrink = 0; shrink <= MAX_SHRINKS; shrink++, side = Math.floor(side * SHRINK)) {
    // The first try keeps the format (a GIF becomes its first frame as PNG); then JPEG at falling qualities.
    const tries: Array<"keep" | number> = shrink === 0 ? ["keep", ...JPEG_QUALITIES] : [...JPEG_QUALITIES];
    for (const attempt of tries) {
      const out = await encode(data, format, side, attempt);
      if (out.data.length <= MAX_IMAGE_BYTES) return { kind: "ok", ...out, originalWidth: original.width, originalHeight: original.height };
    }
  }
  return { kind: "refused", detail: `the image stays above ${formatBytes(MAX_IMAGE_BYTES)} however it is compressed` };
}

async function encode(
  data: Buffer,
  format: ImageMime,
  side: number,
  attempt: "keep" | number,
): Promise<{ mime: ImageMime; data: Buffer; width: number; height: number }> {
  const pipeline = sharp(data, { limitInputPixels: MAX_IMAGE_PIXELS, animated: false, failOn: "error" })
    .rotate()
    .resize({ width: side, height: side, fit: "inside", withoutEnlargement: true });
  const encoded =
    attempt === "keep"
      ? format === "image/jpeg"
        ? pipeline.jpeg({ quality: JPEG_QUALITIES[0], mozjpeg: false })
        : format === "image/webp"
          ? pipeline.webp({ quality: JPEG_QUALITIES[0] })
          : pipeline.png({ compressionLevel: 6 })
      : pipeline.flatten({ background: "#ffffff" }).jpeg({ quality: attempt });
  const { data: out, info } = await encoded.toBuffer({ resolveWithObject: true });
  const mime: ImageMime = attempt === "keep" ? (format === "image/gif" ? "image/png" : format) : "image/jpeg";
  return { mime, data: out, width: info.width, height: info.height };
}

function shortError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 160 ? `${message.slice(0, 159)}…` : message;
}
