/**
 * Names for the API's shapes, taken from the generated schema so that they follow the server.
 * Shapes without a named schema are read off their route's success response.
 */
import type { components, paths } from './schema';

type ResponsesOf<Operation> = Operation extends { responses: infer Responses } ? Responses : never;
type SuccessOf<Responses> = Responses extends { 200: infer Ok }
  ? Ok
  : Responses extends { 201: infer Created }
    ? Created
    : never;
type JsonOf<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;

/** The JSON body of a route's 200 (or 201) answer. */
export type SuccessBody<Path extends keyof paths, Method extends keyof paths[Path]> = JsonOf<
  SuccessOf<ResponsesOf<paths[Path][Method]>>
>;

export type VerificationResult = components['schemas']['VerificationResult'];
export type Status = VerificationResult['status'];
export type List = components['schemas']['List'];
export type ListState = List['state'];
export type ListPage = components['schemas']['ListPage'];
/** The 202 of `POST /lists`: the list, and its webhook secret (shown this once) when it has a webhook. */
export type CreatedList = components['schemas']['CreatedList'];

export type Session = SuccessBody<'/api/v1/session', 'get'>;
export type Account = SuccessBody<'/api/v1/account', 'get'>;
export type Usage = SuccessBody<'/api/v1/usage', 'get'>;
export type UsageDay = Usage['days'][number];
export type ApiKey = SuccessBody<'/api/v1/keys', 'get'>['keys'][number];
export type CreatedKey = SuccessBody<'/api/v1/keys', 'post'>;
/** A connected email platform (Mailchimp): never its credentials. */
export type Integration = components['schemas']['Integration'];
export type IntegrationState = Integration['state'];
export type Audience = components['schemas']['AudienceList']['audiences'][number];
/** An audience whose new subscribers are verified as they arrive. */
export type Watch = components['schemas']['Watch'];
/** A run of an integration: an audience's members read, verified as a list, written back. */
export type Run = components['schemas']['Run'];
export type RunState = Run['state'];
export type Schedule = components['schemas']['Schedule'];
export type CampaignCheck = components['schemas']['CampaignCheck'];
/** A draft campaign offered for the pre-campaign check. */
export type DraftCampaign = components['schemas']['DraftCampaignList']['campaigns'][number];
/** An integration's last pre-campaign check, kept by the server. */
export type LastCampaignCheck = NonNullable<components['schemas']['LastCampaignCheck']['last_check']>;
export type CampaignExclusion = NonNullable<
  NonNullable<
    paths['/api/v1/integrations/{id}/campaign-checks']['post']['requestBody']
  >['content']['application/json']['exclude']
>;

/** One entry of the account's audit log (`GET /audit`), and the names of the changes it records. */
export type AuditEntry = components['schemas']['AuditEntry'];
export type AuditAction = AuditEntry['action'];

/** A page of a list's rows (`GET /lists/{id}/rows`), and one of its rows. */
export type ListRowPage = components['schemas']['ListRowPage'];
export type ListRow = ListRowPage['rows'][number];

/** One row of `GET /lists/{id}/results?format=json` (the schema leaves its items open). */
export interface ResultRow {
  row: number;
  email: string;
  result: VerificationResult | null;
}
