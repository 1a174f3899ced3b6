"""Transport and identity layer (asyncio TCP, handshakes, discovery); see the modules."""
