-h
localhost
sample.event.records
1
