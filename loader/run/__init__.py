"""One run of the load, as its steps, each a module that takes a small typed input and returns a value:

- `discover`: Kafka's topics and the registry's subjects into the topics to load and their schemas;
- `plan`: saved offsets to Kafka's end offsets (fixed now), the topics with work, their schemas' signature;
- `load`: the topics' passes, several at a time (`topic_pass` alone, `topic_group_pass` in groups);
- `commit`: the run's manifest, the commit point, and what the table format records after it;
- `outcome`: what a run that stopped says, and its exit status.

`work` holds the data types the steps and passes share. `loader.job` runs the steps in order.
"""
