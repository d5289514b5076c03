window.extraLoaded = true;
