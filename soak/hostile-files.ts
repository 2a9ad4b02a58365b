// The hostile files some soak messages carry: each of the corpus's bombs, a huge-declared PNG, a
// GIF of 10,000 frames and a truncated PNG, attached by the seed to one message in ten. Their
// runs must still be answered exactly once like any other, each file's verdict in its run's
// request (the check hostileFilesRead), and the processes that read them stay within their memory.
import { NOT_READ_AGAIN_DETAIL } from "../src/files/file-intake.js";
import type { FakeSlack } from "../test/support/fake-slack.js";
import { bombPng, png } from "../test/support/sample-files.js";
import { animatedGif, flateBombPdf, truncated } from "../test/support/hostile-files.js";
import type { HostileSent } from "./checks.js";
import { hashOf } from "./random.js";

const SHARE_PERCENT = 10;

interface HostileFile {
  readonly name: string;
  readonly mimetype: string;
  readonly data: Buffer;
  /** What the run's request says of it once a reader had it. */
  readonly verdict: string;
}

export interface HostileAttachments {
  /** The Slack file objects message n carries: none for most. */
  filesFor(n: number): readonly object[];
  /** The messages that carried one, with what their runs must say. */
  readonly sent: readonly HostileSent[];
}

const EXPANDS = "it expands to more than";

export async function hostileAttachments(seed: number, slack: FakeSlack): Promise<HostileAttachments> {
  const corpus: HostileFile[] = [
    { name: "bomb-one-stream.pdf", mimetype: "application/pdf", data: flateBombPdf(2_048, "one stream"), verdict: EXPANDS },
    { name: "bomb-many-streams.pdf", mimetype: "application/pdf", data: flateBombPdf(2_048, "many streams"), verdict: EXPANDS },
    { name: "bomb-object-stream.pdf", mimetype: "application/pdf", data: flateBombPdf(2_048, "object stream"), verdict: EXPANDS },
    { name: "bomb-nested.pdf", mimetype: "application/pdf", data: flateBombPdf(2_048, "nested"), verdict: EXPANDS },
    { name: "huge.png", mimetype: "image/png", data: bombPng(100_000, 100_000), verdict: "more than the 50 megapixels" },
    { name: "frames.gif", mimetype: "image/gif", data: animatedGif(10_000), verdict: "1×1" },
    { name: "cut.png", mimetype: "image/png", data: truncated(await png(400, 300)), verdict: "the image could not be decoded" },
  ];
  const sent: HostileSent[] = [];
  return {
    filesFor(n) {
      if (hashOf(seed, "hostile", n) % 100 >= SHARE_PERCENT) return [];
      const file = corpus[hashOf(seed, "which hostile", n) % corpus.length]!;
      sent.push({ n, name: file.name, expected: [file.verdict, NOT_READ_AGAIN_DETAIL] });
      return [slack.addFile(file)];
    },
    sent,
  };
}
