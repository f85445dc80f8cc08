"""Other engines beside Spark: DataFusion as producer and consumer, bisecting, portability."""
