// Who can see a Slack conversation, read from a strict fake Slack: public channels are anyone's,
// private ones their members' (paginated), and anything Slack does not answer is "unknown"
// (issue 39, item 3: an answer quoting such a place is held).
import { webApi } from "@slack/bolt";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { slackAudiences } from "../../../src/adapters/slack/channel-audience.js";
import type { AudienceReader } from "../../../src/runs/api/audiences.js";
import { BOT_USER_ID, startFakeSlack, type FakeSlack } from "../../support/fake-slack.js";
import { slackAsked } from "../../support/slack-origins.js";

let fake: FakeSlack;
let audiences: AudienceReader;
const origin = slackAsked("U0ALICE", "C0HOME");

beforeEach(async () => {
  fake = await startFakeSlack();
  const client = new webApi.WebClient("xoxb-test", { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
  audiences = slackAudiences({ of: () => client, writerOf: () => client, tokenOf: async () => "xoxb-test" });
});
afterEach(() => fake.close());

describe("Slack audiences", () => {
  it("names the channel the answer is posted in", () => {
    expect(audiences.destinationOf(origin)).toBe("C0HOME");
  });

  it("a public channel is anyone's, without reading its members", async () => {
    fake.setChannelKind("C0OPEN", "public");
    expect(await audiences.audienceOf(origin, "C0OPEN")).toEqual({ kind: "everyone" });
    expect(fake.callsTo("conversations.members")).toHaveLength(0);
  });

  it("a private channel is its members', read page by page with Slack's cursors", async () => {
    const many = Array.from({ length: 2_345 }, (_, index) => `U${String(index).padStart(6, "0")}`);
    fake.setChannelKind("C0HR", "private");
    fake.setMembers("C0HR", [BOT_USER_ID, ...many]);
    const audience = await audiences.audienceOf(origin, "C0HR");
    expect(audience.kind === "members" && [...audience.members]).toEqual([BOT_USER_ID, ...many]);
    expect(fake.callsTo("conversations.members").map((call) => call.args.cursor ?? "")).toEqual(["", "1000", "2000"]);
  });

  it("a DM is its two people's", async () => {
    fake.setMembers("D0ALICE", [BOT_USER_ID, "U0ALICE"]);
    expect(await audiences.audienceOf(origin, "D0ALICE")).toEqual({ kind: "members", members: new Set([BOT_USER_ID, "U0ALICE"]) });
  });

  it("a channel Slack withholds (missing groups:read) is unknown, and asked again next time", async () => {
    fake.setChannelKind("C0HIDDEN", "private");
    fake.withoutScope("groups:read");
    expect(await audiences.audienceOf(origin, "C0HIDDEN")).toMatchObject({ kind: "unknown" });
    expect(await audiences.audienceOf(origin, "C0HIDDEN")).toMatchObject({ kind: "unknown" });
    expect(fake.callsTo("conversations.info")).toHaveLength(2);
  });

  it("a member list longer than the bound is unknown, not cut short", async () => {
    fake.setChannelKind("C0HUGE", "private");
    fake.setMembers(
      "C0HUGE",
      Array.from({ length: 10_001 }, (_, index) => `U${index}`),
    );
    expect(await audiences.audienceOf(origin, "C0HUGE")).toMatchObject({ kind: "unknown" });
  });

  it("keeps what Slack said briefly: a second question does not ask again", async () => {
    fake.setChannelKind("C0HR", "private");
    fake.setMembers("C0HR", [BOT_USER_ID, "U0ALICE"]);
    await audiences.audienceOf(origin, "C0HR");
    await audiences.audienceOf(origin, "C0HR");
    expect(fake.callsTo("conversations.info")).toHaveLength(1);
  });
});
