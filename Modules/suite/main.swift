print("suite")
