package api

import "github.com/kura-db/kura/internal/wire"

// The Kinesis streaming destination operations' member constraints, as
// DynamoDB's API reference gives them: TableName 1-1024 (a name or an ARN),
// StreamArn 37-1024, ApproximateCreationDateTimePrecision one of the enum.

var enumPrecision = []string{"MILLISECOND", "MICROSECOND"}

var enableKinesisStreamingDestination = op(Backend.EnableKinesisStreamingDestination, func(in *wire.EnableKinesisStreamingDestinationInput) error {
	return kinesisDestinationInput(in.TableName, in.StreamArn, in.EnableKinesisStreamingConfiguration, "enableKinesisStreamingConfiguration")
})

var disableKinesisStreamingDestination = op(Backend.DisableKinesisStreamingDestination, func(in *wire.DisableKinesisStreamingDestinationInput) error {
	return kinesisDestinationInput(in.TableName, in.StreamArn, in.EnableKinesisStreamingConfiguration, "enableKinesisStreamingConfiguration")
})

var updateKinesisStreamingDestination = op(Backend.UpdateKinesisStreamingDestination, func(in *wire.UpdateKinesisStreamingDestinationInput) error {
	var c *wire.EnableKinesisStreamingConfiguration
	if u := in.UpdateKinesisStreamingConfiguration; u != nil {
		c = &wire.EnableKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: u.ApproximateCreationDateTimePrecision}
	}
	return kinesisDestinationInput(in.TableName, in.StreamArn, c, "updateKinesisStreamingConfiguration")
})

var describeKinesisStreamingDestination = op(Backend.DescribeKinesisStreamingDestination, func(in *wire.DescribeKinesisStreamingDestinationInput) error {
	return tableNameOnly(in.TableName)
})

// kinesisDestinationInput checks the members the three changing
// operations share; config is the configuration member named member.
func kinesisDestinationInput(table, stream *string, config *wire.EnableKinesisStreamingConfiguration, member string) error {
	if err := emptyTableName(table); err != nil {
		return err
	}
	var v validator
	v.tableName(table, true)
	v.notNull("streamArn", stream == nil)
	if stream != nil {
		n := len(*stream)
		v.minLen("streamArn", quote(*stream), n, 37)
		v.maxLen("streamArn", quote(*stream), n, 1024)
	}
	if config != nil {
		v.enum(member+".approximateCreationDateTimePrecision", config.ApproximateCreationDateTimePrecision, enumPrecision)
	}
	return v.err()
}
