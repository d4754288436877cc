/**
 * The client's names for the API's shapes, each an alias of a schema of the control plane's OpenAPI document
 * (schema.d.ts, generated from openapi.json by `make types`; neither is edited by hand). One line per type: when a
 * schema is renamed on the server, `make types` and the line here are all that change. The feature API modules
 * re-export these; shapes the document does not describe (push messages, the peer operation's answer) live there.
 *
 * The wire keeps the contract's names (docs/contract.md): rooms are `party` / `partys` in fields and paths.
 */
import type { components } from './schema';

type Schema = components['schemas'];

// Public configuration, session and account.
export type PublicConfig = Schema['PublicConfig'];
export type ServiceStatus = Schema['Status'];
export type CurrentUser = Schema['CurrentUser'];
export type WebSettings = Schema['WebSettings'];
export type LoginRequest = Schema['LoginRequest'];
export type LoginAnswer = Schema['LoginResponse'];
export type TokenPair = Schema['TokenPair'];
export type RegisterRequest = Schema['RegisterRequest'];
export type RecoveryRequest = Schema['RecoveryRequest'];
export type PasswordResetRequest = Schema['PasswordResetRequest'];
export type VerifyEmailRequest = Schema['VerifyEmailRequest'];
export type MessageAnswer = Schema['SuccessResponse'];
export type SettingsPatch = Schema['SettingsPatch'];
export type SettingsAnswer = Schema['SettingsResult'];
export type DeleteAccountRequest = Schema['DeleteAccountRequest'];
export type SessionView = Schema['SessionView'];
export type SessionsClosed = Schema['SessionsClosed'];

// Home, plans and payments.
export type Announcement = Schema['AnnouncementView'];
export type ClientRelease = Schema['ReleaseView'];
export type Plan = Schema['PlanView'];
export type InvoiceRequest = Schema['InvoiceRequest'];
export type InvoiceAnswer = Schema['InvoiceCreated'];
export type InvoiceDetails = Schema['InvoiceDetails'];
export type InvoiceListItem = Schema['InvoiceListItem'];

// Peers and their usage.
export type Peer = Schema['PeerView'];
export type PeerServer = Schema['PeerServer'];
export type PeerRoom = Schema['RoomRef'];
export type PlanHistoryEntry = Schema['PlanHistoryItem'];
/** The body of `PATCH /accounts/peers/{id}`: one variant per operation, tagged on `operation`. */
export type PeerOperation =
  | Schema['PeerRegenerate']
  | Schema['PeerChangeServer']
  | Schema['PeerRegenerateToken']
  | Schema['PeerRename']
  | Schema['PeerMirrorBinding']
  | Schema['PeerReleaseMirrorDevice']
  | Schema['PeerConfirmMirrorDevice']
  | Schema['PeerPause']
  | Schema['PeerResume'];
export type ServerOption = Schema['ServerOption'];
export type UsagePoint = Schema['UsagePoint'];
export type UsageSeries = Schema['UsageSeries'];
export type MonthUsage = Schema['PeerMonthUsage'];

// Rooms.
export type Room = Schema['RoomView'];
export type RoomPeer = Schema['RoomPeer'];
export type LobbyGame = Schema['LobbyGame'];
export type RoomLists = Schema['RoomLists'];
export type RoomAnswer = Schema['RoomAnswer'];
export type RoomCreate = Schema['RoomCreate'];
export type RoomJoin = Schema['RoomJoin'];
/** The body of `PATCH /partys/{id}`: one variant per operation, tagged on `operation`. */
export type RoomOperation =
  | Schema['RoomLeave']
  | Schema['RoomRemovePeer']
  | Schema['RoomRegeneratePassword']
  | Schema['RoomSetPassword'];
export type RoomPlacement = Schema['RoomPlacement'];
export type RoomMoveAnswer = Schema['RoomMoveAnswer'];

// Manager.
export type Done = Schema['Done'];
export type Overview = Schema['Overview'];
export type OperationRow = Schema['OperationRow'];
export type RevenueRow = Schema['RevenueRow'];
export type UsageOverview = Schema['UsageOverview'];
export type UserRow = Schema['UserRow'];
export type UserPage = Schema['UserPage'];
export type UserDetail = Schema['UserDetail'];
export type UserPatch = Schema['UserPatch'];
export type StaffPeer = Schema['StaffPeer'];
export type StaffPeerRoom = Schema['RoomRef'];
export type StaffPeerPage = Schema['PeerPage'];
export type StaffPeerPatch = Schema['PeerPatch'];
export type PeerMove = Schema['PeerMove'];
export type PeerExtend = Schema['PeerExtend'];
export type StaffRoom = Schema['StaffRoom'];
export type ServerStatus = Schema['ServerStatus'];
export type ServerCreated = Schema['ServerCreated'];
export type ServerInput = Schema['ServerInput'];
export type ServerPatch = Schema['ServerPatch'];
export type StaffPlan = Schema['StaffPlan'];
export type PlanInput = Schema['PlanInput'];
export type PlanPatch = Schema['PlanPatch'];
export type StaffAnnouncement = Schema['StaffAnnouncement'];
export type AnnouncementInput = Schema['AnnouncementInput'];
export type AnnouncementPatch = Schema['AnnouncementPatch'];
export type StaffRelease = Schema['StaffRelease'];
export type ReleaseInput = Schema['ReleaseInput'];
export type Switches = Schema['Switches'];
export type SwitchesPatch = Schema['SwitchesPatch'];
export type AuditEntry = Schema['AuditView'];
export type AuditPage = Schema['AuditPage'];
export type StaffInvoice = Schema['StaffInvoice'];
export type StaffInvoiceDetail = Schema['StaffInvoiceDetail'];
export type StaffInvoicePage = Schema['InvoicePage'];
export type ManualPayment = Schema['ManualPayment'];

// Push messages of the live socket: every type with its data (features/realtime/messages.ts derives the rest).
export type ServerPush = Schema['PushMessage'];
export type NoticeData = Schema['Subject'];
export type PeerStats = Schema['PeerStatsLine'];

// Payment links ("alguien paga por mí"): the owner's links and what an anonymous payer sees.
export type PaymentLinkView = Schema['PaymentLinkView'];
export type PaymentLinkCreated = Schema['PaymentLinkCreated'];
export type PublicPaymentLink = Schema['PublicPaymentLink'];
export type PublicPayAnswer = Schema['PublicPayAnswer'];

// Guest passes: a room owner's seat for a friend, and what the friend's claim page reads.
export type GuestPassPlan = Schema['GuestPassPlan'];
export type GuestPassView = Schema['GuestPassView'];
export type GuestPassBought = Schema['GuestPassBought'];
export type PublicGuestPass = Schema['PublicGuestPass'];
export type GuestPassClaimed = Schema['ClaimAnswer'];
