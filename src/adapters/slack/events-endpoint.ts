// Where Slack's HTTP mode takes events, clicks and commands: the Request URL of manifest.yml.
// A file of its own so app.ts can reserve it on PORT (503 until Slack is attached) before Bolt loads.
// A body over maxBodyBytes is refused with 413 (a declared one before it is read): Slack's largest payloads (a message
// of 40,000 characters with 50 blocks, a modal's state) stay far below it.
export const SLACK_EVENTS_ENDPOINT = { path: "/slack/events", methods: ["POST"], maxBodyBytes: 1024 * 1024 } as const;
