package main

// Expected elections, per real sample, as a Kafka engineer reading the file
// would list them: key, leader, previous leader, cause, duration, and each
// broker's role and phase times (seconds.millis). Checked by hand against
// the lines; see testdata/samples/INDEX.md for what each sample shows.
var sampleElections = map[string][]string{
	"002": {
		"test-0@0 leader 0 prev null cause new_partition dur 101 resent false | b0 leader cached=48.516 completed=48.507 handling=48.432 received=48.425 stopped_fetchers=48.507",
	},
	"003": {
		"__consumer_offsets-2@1 leader -1 prev null cause null dur 0 resent false | b0 follower epoch_start=23.800",
		"handover-test-topic-0@0 leader 0 prev null cause new_partition dur 132 resent false | b0 leader epoch_start=03.523 handling=03.391",
		"__consumer_offsets-13@0 leader 0 prev null cause new_partition dur 15 resent false | b0 leader epoch_start=08.683 handling=08.668",
		"__consumer_offsets-46@0 leader 0 prev null cause new_partition dur 25 resent false | b0 leader epoch_start=08.693 handling=08.668",
	},
	"004": {
		"test-topic-0@0 leader 1 prev null cause new_partition dur 0 resent false | ",
	},
	"005": {
		"ssl-test-topic-0@1 leader -1 prev null cause controlled_shutdown dur 17 resent false | b1 follower epoch_start=31.430 handling=31.417 stopped_fetchers=31.434",
		"ssl-test-topic-1@1 leader -1 prev null cause controlled_shutdown dur 17 resent false | b1 follower epoch_start=31.430 handling=31.417 stopped_fetchers=31.434",
		"ssl-test-topic-2@1 leader -1 prev null cause controlled_shutdown dur 17 resent false | b1 follower epoch_start=31.429 handling=31.417 stopped_fetchers=31.434",
		"ssl-test-topic-0@2 leader 1 prev -1 cause null dur 57 resent false | b1 leader epoch_start=52.300 handling=52.243",
		"ssl-test-topic-1@2 leader 1 prev -1 cause null dur 47 resent false | b1 leader epoch_start=52.290 handling=52.243",
		"ssl-test-topic-2@2 leader 1 prev -1 cause null dur 31 resent false | b1 leader epoch_start=52.274 handling=52.243",
		"test-topic-0@0 leader 1 prev null cause new_partition dur 15 resent false | b1 leader epoch_start=54.839 handling=54.824",
	},
	"006": {
		"test-0@0 leader 0 prev null cause new_partition dur 324 resent false | b0 leader cached=45.869 completed=45.810 handling=45.650 received=45.642 stopped_fetchers=45.688",
		"test-0@1 leader 0 prev 0 cause offline_partition dur 269 resent false | b0 leader cached=28.003 completed=28.000 handling=27.998 received=27.997 stopped_fetchers=27.999",
	},
	"011": {
		"sales-9@0 leader 0 prev null cause null dur 0 resent true | b0 leader",
		"shipments-2@0 leader 0 prev null cause null dur 0 resent true | b0 leader",
		"users-4@0 leader 0 prev null cause null dur 0 resent true | b0 leader",
	},
	"027": {
		"test-1@1 leader 0 prev null cause null dur 2 resent false | b0 leader epoch_start=33.078 handling=33.076 stopped_fetchers=33.078",
	},
	"039": {
		"erstesTopic-0@11 leader 0 prev null cause null dur 25 resent false | b0 leader cached=30.910 epoch_start=30.898 finished=30.908 handling=30.887 stopped_fetchers=30.890 | b1 follower cached=30.898 epoch_start=30.890 finished=30.896 handling=30.887 stopped_fetchers=30.891",
		"erstesTopic-1@10 leader 0 prev null cause null dur 25 resent false | b0 leader cached=30.910 epoch_start=30.890 finished=30.908 handling=30.887 stopped_fetchers=30.890 | b1 follower cached=30.898 epoch_start=30.890 finished=30.896 handling=30.887 stopped_fetchers=30.891",
	},
	"050": {
		"kafka-monitor-topic-0@4 leader 2 prev null cause null dur 0 resent false | b2 leader epoch_start=57.571",
	},
}
