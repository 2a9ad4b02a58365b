// Approve / Deny buttons and their custom ids. A custom id names the pending call
// (`appr:a:<runId>:<callId>`) and nothing else, so a click works after a restart: the
// decision itself lives in the service's store. Discord caps custom ids at 100 characters;
// run ids are at most 32 characters (the runner's are 24) and call ids at most 40, so ids stay under 90.
import { ButtonStyle, ComponentType, type APIActionRowComponent, type APIButtonComponentWithCustomId } from "discord.js";
import type { Decision } from "../../agent/types.js";

export interface ApprovalButton {
  readonly decision: Decision;
  readonly runId: string;
  readonly callId: string;
}

const PREFIX = "appr";
const MAX_CUSTOM_ID = 100;
const CUSTOM_ID = /^appr:([ad]):([^:\s]{1,32}):(\S{1,40})$/;

export function approvalCustomId(button: ApprovalButton): string {
  const id = `${PREFIX}:${button.decision === "approve" ? "a" : "d"}:${button.runId}:${button.callId}`;
  if (id.length > MAX_CUSTOM_ID) throw new RangeError(`approval custom id is ${id.length} characters; Discord allows ${MAX_CUSTOM_ID}`);
  return id;
}

/** Undefined for anything that is not one of our approval buttons (clicks are untrusted input). */
export function parseApprovalCustomId(customId: string): ApprovalButton | undefined {
  const match = CUSTOM_ID.exec(customId);
  if (!match) return undefined;
  return { decision: match[1] === "a" ? "approve" : "deny", runId: match[2]!, callId: match[3]! };
}

export function isApprovalCustomId(customId: string): boolean {
  return customId.startsWith(`${PREFIX}:`);
}

export type ButtonRow = APIActionRowComponent<APIButtonComponentWithCustomId>;

export function approvalButtons(runId: string, callId: string, options: { disabled?: boolean } = {}): ButtonRow[] {
  const disabled = options.disabled ?? false;
  return [
    {
      type: ComponentType.ActionRow,
      components: [
        {
          type: ComponentType.Button,
          style: ButtonStyle.Success,
          label: "Approve",
          custom_id: approvalCustomId({ decision: "approve", runId, callId }),
          disabled,
        },
        {
          type: ComponentType.Button,
          style: ButtonStyle.Danger,
          label: "Deny",
          custom_id: approvalCustomId({ decision: "deny", runId, callId }),
          disabled,
        },
      ],
    },
  ];
}
