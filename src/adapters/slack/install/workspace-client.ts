// A Web API client for one installed workspace that asks for a valid token before every call
// (bot-tokens.ts), so a client held for a long run, an answer posted hours later or a file upload
// never goes out with a token that expired meanwhile. Every method of the Web API client goes
// through apiCall; an upload's own requests get the token the upload started with.
import { webApi } from "@slack/bolt";

export type TokenOf = () => Promise<string>;

export class WorkspaceWebClient extends webApi.WebClient {
  readonly #tokenOf: TokenOf;

  constructor(tokenOf: TokenOf, options: webApi.WebClientOptions) {
    super(undefined, options);
    this.#tokenOf = tokenOf;
  }

  override async apiCall(method: string, options: Record<string, unknown> = {}): Promise<webApi.WebAPICallResult> {
    if (typeof options.token === "string") return super.apiCall(method, options);
    return super.apiCall(method, { ...options, token: await this.#tokenOf() });
  }

  override async filesUploadV2(options: webApi.FilesUploadV2Arguments) {
    return super.filesUploadV2(options.token ? options : { ...options, token: await this.#tokenOf() });
  }
}
