enum EventLogPlaceholder {}
