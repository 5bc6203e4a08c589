"""What the vendor clients share: the SDK client base and the HTTP failure rules (engines floor)."""
