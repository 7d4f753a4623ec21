"""The write side of tg-index: read a PyTorch checkout and turn it into facts."""
