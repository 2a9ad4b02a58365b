// Where Slack's HTTP mode takes events, clicks and commands: the Request URL of manifest.yml.
// A file of its own so app.ts can reserve it on PORT (503 until Slack is attached) before Bolt loads.
export const SLACK_EVENTS_ENDPOINT = { path: "/slack/events", methods: ["POST"] } as const;
