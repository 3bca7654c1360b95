"""The table runtime: the controller (journal + game + alarms), recall, and the asyncio shell around devices."""
