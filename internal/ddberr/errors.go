package ddberr

import (
	"errors"
	"fmt"
	"strings"
)

// Evidence: each text written here names its source in a "Source:" line;
// the captures are the files of shared/dynamodb-captures (their README says
// what each holds). Constructors that take a message (Validation,
// ResourceNotFound, ResourceInUse, ...) are given the text by their caller,
// which names its source where it writes it. A text whose source is not
// known says "source: Kura's own".

// Namespaces DynamoDB uses in __type.
const (
	nsDynamo   = "com.amazonaws.dynamodb.v20120810#"
	nsValidate = "com.amazon.coral.validate#"
	nsService  = "com.amazon.coral.service#"
)

// Error is a DynamoDB error as it goes on the wire.
type Error struct {
	Namespace string // e.g. "com.amazon.coral.validate#"
	Type      string // e.g. "ValidationException"
	Message   string
	Status    int // HTTP status
	// Item is the item returned with ConditionalCheckFailedException when
	// ReturnValuesOnConditionCheckFailure=ALL_OLD (encoded by the api layer).
	Item any
	// CancellationReasons for TransactionCanceledException (encoded by api).
	CancellationReasons any
	// Enveloped marks a request check's message (RequestInvalid) whose
	// Detected1 prefix DynamoDB sends only from its single-item write
	// APIs; see Unenveloped.
	Enveloped bool
	// Older is the text of an attribute value check in DynamoDB's older
	// value layer (BatchWriteItem, the transaction APIs, Scan), when it
	// words the check differently; see OlderLayer.
	Older string
	// ThrottlingReasons say which table or index a throttled request ran
	// out of capacity on (ProvisionedThroughputExceededException,
	// ThrottlingException).
	ThrottlingReasons []ThrottlingReason
}

// ThrottlingReason is one member of an error's ThrottlingReasons: Reason
// is ResourceType+OperationType+LimitType ("TableWriteProvisionedThroughputExceeded"),
// Resource the table's or index's ARN.
type ThrottlingReason struct {
	Reason   string `json:"reason"`
	Resource string `json:"resource"`
}

// ThrottlingReasonsKey is the JSON member that carries ThrottlingReasons:
// DynamoDB's model spells it "throttlingReasons" in a ThrottlingException
// and "ThrottlingReasons" in the other throttling errors
// (aws-sdk-go-v2 service/dynamodb v1.74.0 schemas).
func (e *Error) ThrottlingReasonsKey() string {
	if e.Type == "ThrottlingException" {
		return "throttlingReasons"
	}
	return "ThrottlingReasons"
}

func (e *Error) Error() string { return e.Type + ": " + e.Message }

// FullType is the __type member.
func (e *Error) FullType() string { return e.Namespace + e.Type }

// MessageKey is the JSON member that carries Message. The rule: the key is
// the error shape's member name in DynamoDB's service model (aws-sdk-go-v2
// service/dynamodb v1.74.0 schemas, botocore's service-2.json likewise),
// which is what the service serialises. That model spells it "Message" in
// TransactionCanceledException, IdempotentParameterMismatchException and
// TransactionInProgressException and "message" in every other error,
// ConditionalCheckFailedException included, with or without the old item
// of ReturnValuesOnConditionCheckFailure=ALL_OLD (issue 33 item 2, a
// suite run against DynamoDB; LocalStack's AWS-validated test of that
// answer skips verifying "$..message", so it does not contradict it).
// Raw DynamoDB answers agree where they were quoted: "Message" in a
// TransactionCanceledException (boto3 #2657, aws-sdk-net #1292, PynamoDB
// #1143, 2020-2023) and "message" in a plain ConditionalCheckFailed one.
// The errors outside the model say "message", except coral's
// SerializationException (TestSerializationExceptionMessageKey records
// the bodies) and AccessDeniedException, which say "Message". The AWS
// SDKs read either; boto3 also copies a lowercase one into the response
// as the modelled "message" field.
func (e *Error) MessageKey() string {
	switch {
	case e.Namespace == nsService && e.Type == "SerializationException",
		e.Type == "AccessDeniedException", // dynalite's DynamoDB-verified tests read body.Message
		e.Type == "TransactionCanceledException",
		e.Type == "IdempotentParameterMismatchException",
		e.Type == "TransactionInProgressException":
		return "Message"
	}
	return "message"
}

// Is lets errors.Is match on type.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Type == e.Type
}

func newErr(ns, typ string, status int, msg string) *Error {
	return &Error{Namespace: ns, Type: typ, Status: status, Message: msg}
}

// Validation is a ValidationException (HTTP 400) with the given text.
func Validation(msg string) *Error {
	return newErr(nsValidate, "ValidationException", 400, msg)
}

// Detected1 is the prefix Amazon DynamoDB (us-east-1, since 2026-08) puts on
// validation messages raised while checking the request itself, before any
// table is looked up ("1 validation error detected: ..."). Messages that
// depend on the table (key schema checks and the like) carry no prefix.
//
// Source: 2026-08-12-wording-drift.json (us-east-1 moved to the prefixed
// wording; 2026-06-09-validation-rewording.json has both wordings).
const Detected1 = "1 validation error detected: "

// MsgKeySchema is the ValidationException text for a key (Key,
// ExclusiveStartKey) whose attributes are not the key schema's, shared by
// the item operations and the reads (internal/engine, internal/engine/reads).
//
// Source: dynalite's GetItem, Query and Scan tests, run against DynamoDB.
const MsgKeySchema = "The provided key element does not match the schema"

// RequestInvalid is a request-phase ValidationException of the checks
// shared by many operations (expressions and their placeholders,
// attribute values): Detected1 + msg, Enveloped. DynamoDB sends that
// prefix from PutItem, UpdateItem and DeleteItem and the same texts bare
// from its other operations (GetItem, Query, Scan, the batch and
// transaction APIs, PartiQL; recorded in us-east-1 and three other regions
// on 2026-10-09 by a public conformance suite), so the api layer removes
// it there (Unenveloped).
func RequestInvalid(msg string) *Error {
	e := Validation(Detected1 + msg)
	e.Enveloped = true
	return e
}

// Detected is a ValidationException with the Detected1 prefix from every
// operation: the checks of one operation that DynamoDB words that way.
func Detected(msg string) *Error { return Validation(Detected1 + msg) }

// OlderLayer is err as an operation of DynamoDB's older value layer sends
// it: an error with an Older text carries that text, bare.
func OlderLayer(err error) error {
	e, ok := err.(*Error)
	if !ok || e.Older == "" {
		return err
	}
	old := *e
	old.Message, old.Older, old.Enveloped = e.Older, "", false
	return &old
}

// Unenveloped is err as an operation that does not envelope request
// checks sends it: an Enveloped error without its Detected1 prefix, any
// other error unchanged.
func Unenveloped(err error) error {
	e, ok := err.(*Error)
	if !ok || !e.Enveloped {
		return err
	}
	bare := *e
	bare.Message = strings.TrimPrefix(e.Message, Detected1)
	bare.Enveloped = false
	return &bare
}

// RequestInvalidf formats a request-phase ValidationException.
func RequestInvalidf(format string, args ...any) *Error {
	return RequestInvalid(fmt.Sprintf(format, args...))
}

// Validationf formats a ValidationException.
func Validationf(format string, args ...any) *Error {
	return Validation(fmt.Sprintf(format, args...))
}

// InvalidParam is DynamoDB's common "One or more parameter values were
// invalid: ..." ValidationException.
//
// Source: 2026-06-09-validation-rewording.json (c_ct_3keys, every region)
// and cross-region-latest.json (b_put_empty_ss).
func InvalidParam(format string, args ...any) *Error {
	return Validation("One or more parameter values were invalid: " + fmt.Sprintf(format, args...))
}

// Constraint is one failed member constraint, reported by the coral
// validation layer as "Value X at 'member' failed to satisfy constraint: C".
type Constraint struct {
	Value  string // echoed value, already formatted (e.g. "null", "'abc'")
	Member string // member path in camelCase as DynamoDB prints it
	Text   string // e.g. "Member must not be null"
}

// Constraints builds the "N validation error(s) detected: ..." exception, or
// returns nil when cs is empty.
//
// Source: 2026-06-09-validation-rewording.json, cross-region-latest.json and
// 2026-08-12-batch-empty-and-nesting.json ("Value ... at '...' failed to
// satisfy constraint: ...", several joined by "; " after "N validation
// errors detected: ").
func Constraints(cs []Constraint) *Error {
	if len(cs) == 0 {
		return nil
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("Value %s at '%s' failed to satisfy constraint: %s", c.Value, c.Member, c.Text)
	}
	noun := "errors"
	if len(cs) == 1 {
		noun = "error"
	}
	return Validation(fmt.Sprintf("%d validation %s detected: %s", len(cs), noun, strings.Join(parts, "; ")))
}

// Serialization is a SerializationException: a wrongly typed member (msg is
// the deserialiser's text, sent under the key "Message"), or, with msg "",
// a body that is not JSON at all (sent with no message member).
//
// Source: the wrongly typed members' texts are dynalite 4.0.0's, re-checked
// against AWS (commit a4cdf25), the "Message" key as MessageKey says; the
// bare answer to a non-JSON body: source: Kura's own.
func Serialization(msg string) *Error {
	return newErr(nsService, "SerializationException", 400, msg)
}

// UnknownOperation is returned for an unknown X-Amz-Target.
//
// Source: Kura's own (no message).
func UnknownOperation() *Error {
	return newErr(nsService, "UnknownOperationException", 400, "")
}

// ResourceNotFound is DynamoDB's ResourceNotFoundException.
func ResourceNotFound(msg string) *Error {
	return newErr(nsDynamo, "ResourceNotFoundException", 400, msg)
}

// TableNotFound is the data-plane "Requested resource not found" error.
//
// Source: DynamoDB answers quoted in client reports (aws/aws-sdk-js #4127,
// 2022: "ResourceNotFoundException: Requested resource not found").
func TableNotFound() *Error { return ResourceNotFound("Requested resource not found") }

// TableNamedNotFound is the control-plane ResourceNotFoundException, which
// names the table (DescribeTable and the like, ListStreams of a table).
func TableNamedNotFound(name string) *Error {
	return ResourceNotFound("Requested resource not found: Table: " + name + " not found")
}

// TableNotFoundException is the backup APIs' not-found error (not the
// ResourceNotFoundException the other operations answer).
//
// Source: probe reports captured from DynamoDB (us-west-2 and us-east-1,
// 2026-10-08/09), as docs/compatibility.md's on-demand backups note says.
func TableNotFoundException(table string) *Error {
	return newErr(nsDynamo, "TableNotFoundException", 400, "Table not found: "+table)
}

// TableNotFoundBare is TableNotFoundException without the table, as
// RestoreTableToPointInTime answers a missing source named by ARN.
//
// Source: a probe of DynamoDB in us-east-1, 2026-10-09 (engine/pitr_restore.go).
func TableNotFoundBare() *Error {
	return newErr(nsDynamo, "TableNotFoundException", 400, "Table not found")
}

// ContinuousBackupsUnavailable is refused point-in-time recovery settings
// of a table whose backups are not available yet.
//
// Source: the live-probe catalogue of October 2026, DDB-TABLE-115.
func ContinuousBackupsUnavailable(table string) *Error {
	return newErr(nsDynamo, "ContinuousBackupsUnavailableException", 400, "Backups are being enabled for the table: "+table+". Please retry later")
}

// Service is an error of DynamoDB's service layer (namespace
// com.amazon.coral.service#, HTTP 400): the authentication errors.
func Service(typ, msg string) *Error {
	return newErr(nsService, typ, 400, msg)
}

// AccessDenied is the AccessDeniedException of DynamoDB's authorization
// (namespace com.amazon.coral.service#, HTTP 400; the type and namespace
// as dynalite's DynamoDB-verified tests assert them).
//
// Source of the texts: engine/arns.
func AccessDenied(msg string) *Error {
	return newErr(nsService, "AccessDeniedException", 400, msg)
}

// TableInUse is the backup APIs' TableInUseException.
func TableInUse(msg string) *Error {
	return newErr(nsDynamo, "TableInUseException", 400, msg)
}

// TableAlreadyExists is the restore APIs' TableAlreadyExistsException.
//
// Source: probe reports captured from DynamoDB (us-west-2 and us-east-1,
// 2026-10-08/09), with the backup APIs' other texts.
func TableAlreadyExists(table string) *Error {
	return newErr(nsDynamo, "TableAlreadyExistsException", 400, "Table already exists: "+table)
}

// BackupNotFound is DynamoDB's BackupNotFoundException.
func BackupNotFound(msg string) *Error {
	return newErr(nsDynamo, "BackupNotFoundException", 400, msg)
}

// PointInTimeRecoveryUnavailable is DynamoDB's
// PointInTimeRecoveryUnavailableException.
func PointInTimeRecoveryUnavailable(msg string) *Error {
	return newErr(nsDynamo, "PointInTimeRecoveryUnavailableException", 400, msg)
}

// InvalidExportTime is DynamoDB's InvalidExportTimeException.
func InvalidExportTime(msg string) *Error {
	return newErr(nsDynamo, "InvalidExportTimeException", 400, msg)
}

// ImportNotFound is DynamoDB's ImportNotFoundException.
func ImportNotFound(msg string) *Error {
	return newErr(nsDynamo, "ImportNotFoundException", 400, msg)
}

// ExportNotFound is DynamoDB's ExportNotFoundException.
func ExportNotFound(msg string) *Error {
	return newErr(nsDynamo, "ExportNotFoundException", 400, msg)
}

// ExportConflict is DynamoDB's ExportConflictException.
func ExportConflict(msg string) *Error {
	return newErr(nsDynamo, "ExportConflictException", 400, msg)
}

// InvalidRestoreTime is DynamoDB's InvalidRestoreTimeException.
func InvalidRestoreTime(msg string) *Error {
	return newErr(nsDynamo, "InvalidRestoreTimeException", 400, msg)
}

// BackupInUse is DynamoDB's BackupInUseException.
func BackupInUse(msg string) *Error {
	return newErr(nsDynamo, "BackupInUseException", 400, msg)
}

// ResourceInUse is DynamoDB's ResourceInUseException.
func ResourceInUse(msg string) *Error {
	return newErr(nsDynamo, "ResourceInUseException", 400, msg)
}

// ConditionalCheckFailed is returned when a ConditionExpression is false.
//
// Source: 2026-08-12-batch-empty-and-nesting.json (the nesting probe's
// ConditionalCheckFailedException in 25 regions).
func ConditionalCheckFailed() *Error {
	return newErr(nsDynamo, "ConditionalCheckFailedException", 400, "The conditional request failed")
}

// InvalidSearchVector refuses a SearchVector element that is not a
// 32-bit float: another type, a number out of float32's range, or one
// that does not read as a number at all (measured against DynamoDB; the
// last per ScyllaDB's Alternator tests, which are run against it).
func InvalidSearchVector() *Error {
	return Validation("Search vector contains invalid values. All values in the search vector must be a 32-bit floating-point number attribute")
}

// GlobalTableNotFound is DynamoDB's GlobalTableNotFoundException.
func GlobalTableNotFound(msg string) *Error {
	return newErr(nsDynamo, "GlobalTableNotFoundException", 400, msg)
}

// LimitExceeded is DynamoDB's LimitExceededException.
func LimitExceeded(msg string) *Error {
	return newErr(nsDynamo, "LimitExceededException", 400, msg)
}

// ItemCollectionSizeLimitExceeded is returned when a write would take an
// item collection of a table with LSIs past 10 GB. The text is the one
// DynamoDB's error reference documents for it.
func ItemCollectionSizeLimitExceeded() *Error {
	return newErr(nsDynamo, "ItemCollectionSizeLimitExceededException", 400, "Collection size exceeded")
}

// TransactionCanceled carries per-action reasons.
func TransactionCanceled(msg string, reasons any) *Error {
	e := newErr(nsDynamo, "TransactionCanceledException", 400, msg)
	e.CancellationReasons = reasons
	return e
}

// PolicyNotFound is a missing resource-based policy, or one whose
// revision is not the one a request expected.
func PolicyNotFound(msg string) *Error {
	return newErr(nsDynamo, "PolicyNotFoundException", 400, msg)
}

// TransactionConflict is returned when another transaction holds an item.
func TransactionConflict(msg string) *Error {
	return newErr(nsDynamo, "TransactionConflictException", 400, msg)
}

// ReplicatedWriteConflict refuses a write to an item of a multi-Region
// strongly consistent (MRSC) global table that a request in another region
// is modifying. The AWS SDKs treat it as a client fault that is safe to
// retry.
//
// Source: the type, the client fault (HTTP 400) and the retry are the API
// reference's (the SDKs' error shape: "The request was rejected because
// one or more items in the request are being modified by a request in
// another Region."); no capture of DynamoDB's message was found, so the
// message is that sentence.
func ReplicatedWriteConflict() *Error {
	return newErr(nsDynamo, "ReplicatedWriteConflictException", 400,
		"The request was rejected because one or more items in the request are being modified by a request in another Region.")
}

// IdempotentParameterMismatch is returned for a reused ClientRequestToken.
func IdempotentParameterMismatch(msg string) *Error {
	return newErr(nsDynamo, "IdempotentParameterMismatchException", 400, msg)
}

// DuplicateItem is PartiQL INSERT of an existing key.
//
// Source: Kura's own.
func DuplicateItem() *Error {
	return newErr(nsDynamo, "DuplicateItemException", 400, "Duplicate primary key exists in table")
}

// ErrRequestTooLarge reports a request body over DynamoDB's request size
// limit (16 MB). It is deliberately not an *Error: DynamoDB answers such a
// request with HTTP 413 and an empty body, no __type and no message, and
// the api layer writes exactly that. (A __type such as RequestLimitExceeded
// would be wrong: the AWS SDKs treat that code as retryable throttling and
// would send the oversized body again.)
//
// Source: stated, not traced to a capture or document, by commit a4cdf25:
// source: Kura's own.
var ErrRequestTooLarge = errors.New("request body exceeds the request size limit")

// Internal is an InternalServerError (HTTP 500).
func Internal(msg string) *Error {
	return newErr(nsDynamo, "InternalServerError", 500, msg)
}

// ServiceUnavailable is DynamoDB's answer while it cannot serve a region:
// ServiceUnavailable, HTTP 503, which the AWS SDKs retry. Kura sends it for
// a region made unavailable through the admin endpoints (a regional outage:
// AWS's reports of its outages speak of increased API error rates).
//
// Source: the type and status are DynamoDB's documented 5xx error
// (developer guide, "Error handling with DynamoDB": "ServiceUnavailable
// ... DynamoDB is currently unavailable. (This should be a temporary
// state.)"); the message is that sentence.
func ServiceUnavailable() *Error {
	return newErr(nsDynamo, "ServiceUnavailable", 503, "DynamoDB is currently unavailable. (This should be a temporary state.)")
}

// HostNotAllowed refuses a request whose Host header names a server Kura
// is not (api's DNS-rebinding guard: --allow-any-host turns it off).
// DynamoDB has no such check, as it answers only its own names, so the
// type is DynamoDB's AccessDeniedException (HTTP 400) and the text Kura's
// own, saying how to allow the name. host is cut to 200 bytes.
func HostNotAllowed(host string) *Error {
	if len(host) > 200 {
		host = host[:200] + "..."
	}
	return newErr(nsDynamo, "AccessDeniedException", 400, "Host '"+host+"' is not a name this server answers to (an IP address, localhost or the --listen host); "+
		"start Kura with --allow-any-host to serve requests sent to other names")
}

// DiskFull is the answer to a write refused because the server's data disk
// is nearly full (storage.ErrNoSpace; detail says how full). DynamoDB has
// no such condition, so Kura's own text goes in the InternalServerError
// every operation's model declares (HTTP 500, which the SDKs retry with
// backoff): the client sees the cause instead of "Internal server error".
func DiskFull(detail string) *Error {
	return Internal("Writes are refused: the server's data disk is nearly full (" + detail +
		"). Reads are still served; writes resume when disk space is freed.")
}

// Throttling is used when the server sheds load.
func Throttling(msg string) *Error {
	return newErr(nsDynamo, "ThrottlingException", 400, msg)
}

// Provisioned-throughput and on-demand maximum texts, as DynamoDB words
// them (the table and GSI texts of ProvisionedThroughputExceededException
// as quoted from DynamoDB answers in client issues, 2017-2021; the
// on-demand ones are the ThrottlingError texts of the SDK's
// TransactionCanceledException documentation, the table one also quoted
// from a 2024 ThrottlingException answer).
const (
	MsgThroughputTable = "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."
	MsgThroughputIndex = "The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded. Consider increasing your provisioning level for the under-provisioned global secondary indexes with the UpdateTable API"
	MsgOnDemandTable   = "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"
	MsgOnDemandIndex   = "Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB is automatically scaling your index so please try again shortly."
)

// ProvisionedThroughputExceeded is a request refused because a
// provisioned table or index has no capacity left.
func ProvisionedThroughputExceeded(msg string, reasons ...ThrottlingReason) *Error {
	e := newErr(nsDynamo, "ProvisionedThroughputExceededException", 400, msg)
	e.ThrottlingReasons = reasons
	return e
}

// OnDemandThroughputExceeded is a request refused because an on-demand
// table or index is at its configured maximum throughput.
func OnDemandThroughputExceeded(msg string, reasons ...ThrottlingReason) *Error {
	e := newErr(nsDynamo, "ThrottlingException", 400, msg)
	e.ThrottlingReasons = reasons
	return e
}

// As returns err as *Error, wrapping unknown errors as InternalServerError.
func As(err error) *Error {
	if e, ok := err.(*Error); ok {
		return e
	}
	// Source: DynamoDB answers quoted in client reports
	// (aws/aws-sdk-java #1881, 2019; Sleavely/dynamo-plus #16, 2020).
	return Internal("Internal server error")
}

// NotAuthorized is the AccessDeniedException of a request the caller's
// IAM policies do not allow (--iam-file). who, action and resource are
// ARNs and the action's name ("dynamodb:GetItem"); the reasons' wording is
// DynamoDB's as AWS's IAM User Guide ("Troubleshoot access denied error
// messages") and answers quoted in public issues (anomalyco/sst 4469,
// praetorian-inc/chariot-ui 565, 2024) give it.
func NotAuthorized(who, action, resource string, explicit, inResource bool) *Error {
	msg := "User: " + who + " is not authorized to perform: " + action + " on resource: " + resource
	switch {
	case explicit && inResource:
		msg += " with an explicit deny in a resource-based policy"
	case explicit:
		msg += " with an explicit deny in an identity-based policy"
	default:
		msg += " because no identity-based policy allows the " + action + " action"
	}
	return AccessDenied(msg)
}

// MsgItemSize is the ValidationException text for an item over 400 KB,
// shared by PutItem, BatchWriteItem and transactions.
const MsgItemSize = "Item size has exceeded the maximum allowed size"
