"""The presentation layer: the table model, the texts, the terminal and the web player, i18n."""
